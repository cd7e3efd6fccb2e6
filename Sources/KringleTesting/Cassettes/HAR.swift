import Foundation

/// HTTP Archive (HAR) 1.2, the format in which browsers' developer tools export and import
/// the requests of a page: the file format of Kringle's cassettes (``RecordingTransport``,
/// ``ReplayTransport``).
///
/// The types follow the spec's objects one to one (W3C Web Performance Working Group,
/// "HTTP Archive (HAR) format", version 1.2), under the spec's field names. Each keeps the
/// custom fields it was read with (names beginning with `_`, such as Chrome's
/// `_resourceType`) in `custom`, and writes them back, so a cassette edited by a tool loses
/// nothing when Kringle appends to it.
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
    public struct Archive: Sendable, Hashable, Codable {
        /// The log.
        public var log: Log
        /// Custom fields beside `log`.
        public var custom: [String: HARValue]

        /// An archive of `log`.
        public init(log: Log, custom: [String: HARValue] = [:]) {
            self.log = log
            self.custom = custom
        }

        /// Reads an archive.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: HARKey.self)
            log = try container.decode(Log.self, forKey: HARKey("log"))
            custom = try container.customFields()
        }

        /// Writes the archive.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: HARKey.self)
            try container.put(log, "log")
            try container.putCustom(custom)
        }
    }

    /// The root of the data: who wrote it, the pages and the entries (HAR 1.2 `log`).
    public struct Log: Sendable, Hashable, Codable {
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
        /// Custom fields.
        public var custom: [String: HARValue]

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

        /// Reads a log.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: HARKey.self)
            version = try container.field("version", or: HAR.version)
            creator = try container.field("creator", or: Creator(name: "unknown", version: ""))
            browser = try container.optional("browser")
            pages = try container.optional("pages")
            entries = try container.field("entries", or: [])
            comment = try container.optional("comment")
            custom = try container.customFields()
        }

        /// Writes the log.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: HARKey.self)
            try container.put(version, "version")
            try container.put(creator, "creator")
            try container.put(browser, "browser")
            try container.put(pages, "pages")
            try container.put(entries, "entries")
            try container.put(comment, "comment")
            try container.putCustom(custom)
        }
    }

    /// An application that wrote a log, or the browser (HAR 1.2 `creator`, `browser`).
    public struct Creator: Sendable, Hashable, Codable {
        /// Its name.
        public var name: String
        /// Its version.
        public var version: String
        /// A comment.
        public var comment: String?
        /// Custom fields.
        public var custom: [String: HARValue]

        /// Kringle's own `KringleTesting`.
        public static let kringle = Creator(name: "KringleTesting", version: "1")

        /// A creator.
        public init(name: String, version: String, comment: String? = nil, custom: [String: HARValue] = [:]) {
            self.name = name
            self.version = version
            self.comment = comment
            self.custom = custom
        }

        /// Reads a creator.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: HARKey.self)
            name = try container.field("name", or: "")
            version = try container.field("version", or: "")
            comment = try container.optional("comment")
            custom = try container.customFields()
        }

        /// Writes the creator.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: HARKey.self)
            try container.put(name, "name")
            try container.put(version, "version")
            try container.put(comment, "comment")
            try container.putCustom(custom)
        }
    }

    /// A page a browser loaded, which entries refer to by ``id`` (HAR 1.2 `pages`).
    public struct Page: Sendable, Hashable, Codable {
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
        /// Custom fields.
        public var custom: [String: HARValue]

        /// Reads a page.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: HARKey.self)
            startedDateTime = try container.field("startedDateTime", or: "")
            id = try container.field("id", or: "")
            title = try container.field("title", or: "")
            pageTimings = try container.field("pageTimings", or: .object([:]))
            comment = try container.optional("comment")
            custom = try container.customFields()
        }

        /// Writes the page.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: HARKey.self)
            try container.put(startedDateTime, "startedDateTime")
            try container.put(id, "id")
            try container.put(title, "title")
            try container.put(pageTimings, "pageTimings")
            try container.put(comment, "comment")
            try container.putCustom(custom)
        }
    }
}
