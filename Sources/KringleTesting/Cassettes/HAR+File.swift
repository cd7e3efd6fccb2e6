import Foundation
@_spi(KringleInternals) import KringlePromise

extension HAR.Archive {
    /// Reads the HAR file at `url`.
    ///
    /// - Throws: ``CassetteError/unreadable(_:underlying:)`` when the file cannot be read or
    ///   is not a HAR file.
    public static func read(from url: URL) throws(CassetteError) -> HAR.Archive {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(url, underlying: error)
        }
        do {
            return try JSONDecoder().decode(HAR.Archive.self, from: data)
        } catch {
            throw .unreadable(url, underlying: error)
        }
    }

    /// The archive as a HAR file's bytes: pretty-printed, keys sorted, so that a cassette
    /// diffs well in review and the same exchanges always give the same file.
    public func encoded() throws(CassetteError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(self)
        } catch {
            throw .unwritable(URL(fileURLWithPath: "/dev/null"), underlying: error)
        }
    }

    /// Writes the archive to `url` atomically: into a file beside it, then renamed over it,
    /// so a reader (or a crash) never sees half a file. Creates the folder if needed.
    ///
    /// - Throws: ``CassetteError/unwritable(_:underlying:)``.
    public func write(to url: URL) throws(CassetteError) {
        let data = try encoded()
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        } catch {
            throw .unwritable(url, underlying: error)
        }
    }

    /// Adds `entries` at the end of the HAR file at `url`, or writes a new file with them:
    /// what the file held (entries, pages, custom fields) is read afresh and kept, and the
    /// result is written atomically (``write(to:)``).
    ///
    /// Appends within one process are serialised, so two recorders writing one cassette
    /// lose nothing; two processes appending to one file at once are not supported.
    ///
    /// - Throws: ``CassetteError/unreadable(_:underlying:)`` when the file exists but is not
    ///   a HAR file (it is left untouched); ``CassetteError/unwritable(_:underlying:)``.
    public static func append(_ entries: [HAR.Entry], to url: URL) throws(CassetteError) {
        let outcome = appendLock.withLock { _ in
            Result { () throws(CassetteError) in
                var archive = HAR.Archive(log: HAR.Log())
                if FileManager.default.fileExists(atPath: url.path) {
                    archive = try read(from: url)
                }
                archive.log.entries += entries
                try archive.write(to: url)
            }
        }
        try outcome.get()
    }

    /// Serialises ``append(_:to:)`` within the process: a read-modify-write must not
    /// interleave with another on the same file.
    private static let appendLock = Locked(())
}

extension HAR {
    /// `date` as HAR writes moments: ISO 8601 with milliseconds, in UTC.
    public static func string(from date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// The moment an ISO 8601 string names, with or without fractional seconds.
    public static func date(from string: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: string) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: string)
    }
}

extension HAR.Content {
    /// The content of `body`: as text when it is UTF-8 without NUL characters, otherwise in
    /// base64 with ``encoding`` `base64` (HAR 1.2 §content).
    public init(body: Data, mimeType: String) {
        if let text = HAR.text(of: body) {
            self.init(size: body.count, mimeType: mimeType, text: text)
        } else {
            self.init(size: body.count, mimeType: mimeType, text: body.base64EncodedString(), encoding: "base64")
        }
    }

    /// The body's bytes, decoded from base64 when ``encoding`` says so.
    ///
    /// - Throws: ``CassetteError/malformedEntry(_:reason:)`` for base64 that does not decode.
    public func body() throws(CassetteError) -> Data {
        try HAR.bytes(text: text, encoding: encoding)
    }
}

extension HAR.PostData {
    /// The body of a request: as text when it is UTF-8 without NUL characters, otherwise in
    /// base64, said in the custom field `_encoding`.
    public init(body: Data, mimeType: String) {
        if let text = HAR.text(of: body) {
            self.init(mimeType: mimeType, text: text)
        } else {
            self.init(mimeType: mimeType, text: body.base64EncodedString(), custom: ["_encoding": .string("base64")])
        }
    }

    /// The body's bytes: ``text`` (decoded from base64 when `_encoding` says so), or else
    /// the ``params`` form-encoded as `application/x-www-form-urlencoded` would send them.
    ///
    /// - Throws: ``CassetteError/malformedEntry(_:reason:)`` for base64 that does not decode.
    public func body() throws(CassetteError) -> Data {
        if text == nil, let params {
            var components = URLComponents()
            components.queryItems = params.map { URLQueryItem(name: $0.name, value: $0.value) }
            return Data((components.percentEncodedQuery ?? "").utf8)
        }
        var encoding: String?
        if case .string(let value)? = custom["_encoding"] { encoding = value }
        return try HAR.bytes(text: text, encoding: encoding)
    }
}

extension HAR {
    /// `body` as text, when it is UTF-8 and holds no NUL (which tools read as binary).
    static func text(of body: Data) -> String? {
        guard !body.contains(0), let text = String(validating: body, as: UTF8.self) else { return nil }
        return text
    }

    static func bytes(text: String?, encoding: String?) throws(CassetteError) -> Data {
        guard let text else { return Data() }
        guard encoding == "base64" else { return Data(text.utf8) }
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
            throw .malformedEntry(-1, reason: "its body is marked base64 but does not decode")
        }
        return data
    }
}
