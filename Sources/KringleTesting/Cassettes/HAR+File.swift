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
        try encoded(entries: log.entries.map { entry throws(CassetteError) in try HAR.encoded(entry) })
    }

    /// ``encoded()`` from each entry's own encoding (`fragments`, one per entry of the
    /// archive, as ``HAR/encoded(_:)`` gives them), so that a recorder writing after every
    /// exchange encodes each entry once, not the whole file each time: the rest of the
    /// archive is encoded, and the entries are set into its empty `entries` array. The bytes
    /// are the same as encoding the whole archive (a test holds that). Were the log's
    /// `entries` member not found where the encoder puts it, the whole archive is encoded
    /// instead.
    func encoded(entries fragments: [Data]) throws(CassetteError) -> Data {
        var rest = self
        rest.log.entries = []
        let skeleton = try HAR.encode(rest)
        guard !fragments.isEmpty else { return skeleton }
        // The log's own member: four spaces deep. A custom field's `entries` is deeper.
        guard let opening = skeleton.range(of: Data("\n    \"entries\" : [".utf8)),
            let closing = skeleton[opening.upperBound...].firstIndex(of: UInt8(ascii: "]"))
        else { return try HAR.encode(self) }
        var data = Data(skeleton[..<opening.upperBound])
        data.reserveCapacity(skeleton.count + fragments.reduce(0) { $0 + $1.count + 2 })
        for (index, fragment) in fragments.enumerated() {
            data.append(contentsOf: (index == 0 ? "\n" : ",\n").utf8)
            data.append(fragment)
        }
        data.append(contentsOf: "\n    ".utf8)
        data.append(skeleton[closing...])
        return data
    }

    /// Writes the archive to `url` atomically: into a file beside it, then renamed over it,
    /// so a reader (or a crash) never sees half a file. Creates the folder if needed.
    ///
    /// - Throws: ``CassetteError/unwritable(_:underlying:)``.
    public func write(to url: URL) throws(CassetteError) {
        try Self.write(try encoded(), to: url)
    }

    private static func write(_ data: Data, to url: URL) throws(CassetteError) {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        } catch {
            throw .unwritable(url, underlying: error)
        }
    }

    /// Adds `entries` at the end of the HAR file at `url`, or writes a new file with them:
    /// what the file held (entries, pages, custom and unknown fields) is read afresh and
    /// kept, and the result is written atomically (``write(to:)``).
    ///
    /// Appends within one process are serialised, so two recorders writing one cassette
    /// lose nothing; two processes appending to one file at once are not supported.
    ///
    /// - Throws: ``CassetteError/unreadable(_:underlying:)`` when the file exists but is not
    ///   a HAR file (it is left untouched); ``CassetteError/unwritable(_:underlying:)``.
    public static func append(_ entries: [HAR.Entry], to url: URL) throws(CassetteError) {
        _ = try append(entries, to: url, after: nil)
    }

    /// ``append(_:to:)``, skipping the read when the file is as `snapshot` saw it after the
    /// caller's last write (same size, same modification time): a recorder writing after
    /// every exchange then encodes the file but does not decode it each time.
    static func append(_ entries: [HAR.Entry], to url: URL, after snapshot: HARFileSnapshot?) throws(CassetteError)
        -> HARFileSnapshot
    {
        let outcome = appendLock.withLock { _ in
            Result { () throws(CassetteError) -> HARFileSnapshot in
                var archive = HAR.Archive(log: HAR.Log())
                var fragments: [Data] = []
                let found = HARFileSnapshot.stamp(of: url)
                if let snapshot, let found, snapshot.stamp == found {
                    archive = snapshot.archive
                    fragments = snapshot.entryFragments
                } else if found != nil {
                    archive = try read(from: url)
                    fragments = try archive.log.entries.map { entry throws(CassetteError) in try HAR.encoded(entry) }
                }
                archive.log.entries += entries
                fragments += try entries.map { entry throws(CassetteError) in try HAR.encoded(entry) }
                try write(try archive.encoded(entries: fragments), to: url)
                return HARFileSnapshot(
                    archive: archive, entryFragments: fragments, stamp: HARFileSnapshot.stamp(of: url))
            }
        }
        return try outcome.get()
    }

    /// Serialises ``append(_:to:)`` within the process: a read-modify-write must not
    /// interleave with another on the same file.
    private static let appendLock = Locked(())
}

extension HAR {
    /// How every HAR file is encoded: pretty-printed, keys sorted, slashes as they are.
    static func encode(_ value: some Encodable) throws(CassetteError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            throw .unwritable(URL(fileURLWithPath: "/dev/null"), underlying: error)
        }
    }

    /// One entry encoded as it sits in a file: each line but the empty ones (the encoder
    /// writes an empty array as `[`, an empty line, `]`) moved six spaces deeper, inside
    /// `log.entries`. A pretty-printed JSON text's line breaks are all between tokens (one
    /// inside a string is written `\n`), so that changes nothing in the value.
    static func encoded(_ entry: Entry) throws(CassetteError) -> Data {
        let alone = try encode(entry)
        let space = UInt8(ascii: " ")
        let newline = UInt8(ascii: "\n")
        var indented: [UInt8] = []
        indented.reserveCapacity(alone.count * 5 / 4)
        alone.withUnsafeBytes { bytes in
            var atLineStart = true
            for byte in bytes {
                if atLineStart, byte != newline {
                    indented.append(contentsOf: repeatElement(space, count: 6))
                }
                indented.append(byte)
                atLineStart = byte == newline
            }
        }
        return Data(indented)
    }

    /// `date` as HAR writes moments: ISO 8601 with milliseconds, in UTC.
    public static func string(from date: Date) -> String {
        // A format style, not an `ISO8601DateFormatter`: making a formatter costs about 0.2 ms,
        // which was half of what recording added to an exchange (kringle-benchmarks cassettes).
        // The milliseconds are written by hand: the style truncates, and 0.123 s is stored as
        // 0.12299….
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let whole = fraction < 0 ? seconds - 1 : seconds
        let text = Date(timeIntervalSince1970: TimeInterval(whole)).formatted(secondsStyle)
        let digits = String(fraction < 0 ? fraction + 1000 : fraction)
        return text.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// `2024-05-01T10:00:00Z`: UTC, to the second.
    private static let secondsStyle = Date.ISO8601FormatStyle()

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
