import Foundation

/// HTTP Archive (HAR) 1.2, the format in which browsers' developer tools export and import
/// the requests of a page: the file format of Kringle's cassettes (``RecordingTransport``,
/// ``ReplayTransport``).
///
/// The types follow the spec's objects one to one (W3C Web Performance Working Group,
/// "HTTP Archive (HAR) format", version 1.2), under the spec's field names. Each keeps every
/// other field it was read with in `custom`, and writes it back under the same name: the
/// custom fields of the spec (names beginning with `_`, such as Chrome's `_resourceType`),
/// and fields a tool adds without the `_` (Chrome's `sameSite` on a cookie). So a cassette
/// edited by a tool, or a browser's export, loses nothing when Kringle appends to it. A name
/// set in `custom` that is one of the object's own fields is written with a `_` before it,
/// so that it cannot replace that field.
///
/// ```swift
/// let archive = try HAR.Archive.read(from: cassetteURL)
/// for entry in archive.log.entries {
///     print(entry.request.method, entry.request.url, entry.response.status)
/// }
/// ```
public enum HAR {
    /// The version of the spec written: `1.2`.
    public static let version = "1.2"
}

extension HAR {
    /// A HAR file: an object whose one field is `log`.
    public struct Archive: Sendable, Hashable, Codable, HARObject {
        /// The log.
        public var log: Log
        /// The fields beside `log` (custom, or unknown to Kringle), as read.
        public var custom: [String: HARValue]

        /// The fields HAR 1.2 defines for this object, which Kringle models, in the order they are
        /// written; any other is kept in ``custom``.
        static let coding = HARFields<Archive>(
            blank: Archive(log: Log()),
            [
                .required("log", \.log)
            ])

        /// An archive of `log`.
        public init(log: Log, custom: [String: HARValue] = [:]) {
            self.log = log
            self.custom = custom
        }
    }

    /// The root of the data: who wrote it, the pages and the entries (HAR 1.2 `log`).
    public struct Log: Sendable, Hashable, Codable, HARObject {
        /// The version of the format, `1.2`.
        public var version: String
        /// The application that wrote the log.
        public var creator: Creator
        /// The browser, when a browser wrote it.
        public var browser: Creator?
        /// The pages, for a browser's export; `nil` when the writer has none (Kringle).
        public var pages: [Page]?
        /// Every exchange, in the order it started.
        public var entries: [Entry]
        /// A comment.
        public var comment: String?
        /// The custom fields, and the others Kringle does not model, as read (see ``HAR``).
        public var custom: [String: HARValue]

        /// The fields HAR 1.2 defines for this object, which Kringle models, in the order they are
        /// written; any other is kept in ``custom``.
        static let coding = HARFields<Log>(
            blank: Log(),
            [
                .field("version", \.version, or: HAR.version),
                .field("creator", \.creator, or: Creator(name: "unknown", version: "")),
                .optional("browser", \.browser),
                .optional("pages", \.pages),
                .field("entries", \.entries, or: []),
                .optional("comment", \.comment),
            ])

        /// A log of `entries`, written by `creator` (Kringle by default).
        public init(
            creator: Creator = .kringle, entries: [Entry] = [], pages: [Page]? = nil, browser: Creator? = nil,
            comment: String? = nil, custom: [String: HARValue] = [:]
        ) {
            version = HAR.version
            self.creator = creator
            self.browser = browser
            self.pages = pages
            self.entries = entries
            self.comment = comment
            self.custom = custom
        }
    }

    /// An application that wrote a log, or the browser (HAR 1.2 `creator`, `browser`).
    public struct Creator: Sendable, Hashable, Codable, HARObject {
        /// Its name.
        public var name: String
        /// Its version.
        public var version: String
        /// A comment.
        public var comment: String?
        /// The custom fields, and the others Kringle does not model, as read (see ``HAR``).
        public var custom: [String: HARValue]

        /// The fields HAR 1.2 defines for this object, which Kringle models, in the order they are
        /// written; any other is kept in ``custom``.
        static let coding = HARFields<Creator>(
            blank: Creator(name: "", version: ""),
            [
                .field("name", \.name, or: ""),
                .field("version", \.version, or: ""),
                .optional("comment", \.comment),
            ])

        /// Kringle's own `KringleTesting`.
        public static let kringle = Creator(name: "KringleTesting", version: "1")

        /// A creator.
        public init(name: String, version: String, comment: String? = nil, custom: [String: HARValue] = [:]) {
            self.name = name
            self.version = version
            self.comment = comment
            self.custom = custom
        }
    }

    /// A page a browser loaded, which entries refer to by ``id`` (HAR 1.2 `pages`).
    public struct Page: Sendable, Hashable, Codable, HARObject {
        /// When the page load started (ISO 8601).
        public var startedDateTime: String
        /// The identifier entries give as their ``Entry/pageref``.
        public var id: String
        /// The page's title.
        public var title: String
        /// When the page's events fired, in milliseconds from ``startedDateTime``
        /// (`onContentLoad`, `onLoad`, `-1` when not applicable), as read.
        public var pageTimings: HARValue
        /// A comment.
        public var comment: String?
        /// The custom fields, and the others Kringle does not model, as read (see ``HAR``).
        public var custom: [String: HARValue]

        /// The fields HAR 1.2 defines for this object, which Kringle models, in the order they are
        /// written; any other is kept in ``custom``.
        static let coding = HARFields<Page>(
            blank: Page(),
            [
                .field("startedDateTime", \.startedDateTime, or: ""),
                .field("id", \.id, or: ""),
                .field("title", \.title, or: ""),
                .field("pageTimings", \.pageTimings, or: .object([:])),
                .optional("comment", \.comment),
            ])

        /// A page with every field empty, which reading starts from.
        init() {
            startedDateTime = ""
            id = ""
            title = ""
            pageTimings = .object([:])
            custom = [:]
        }
    }
}
