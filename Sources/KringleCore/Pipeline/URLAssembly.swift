import Foundation

// The URL of a request, built from an endpoint's base, path and query items, and remembered
// (URLMemo.swift) so that it is not built again.

/// Builds the URL of an endpoint.
enum URLAssembly {
    /// `base` joined with `path`, then `queryItems` appended to any query `base` has.
    ///
    /// - Throws: ``KringleError/invalidRequest(_:)`` when no valid absolute URL forms.
    static func url(base: URL, path: String, queryItems: [URLQueryItem]) throws -> URL {
        let baseText = base.absoluteString
        return try built.url(for: URLMemo.Key(base: baseText, path: path, queryItems: queryItems)) {
            // Scheme and host in lower case, as for a redirect's target: FoundationNetworking
            // refuses `HTTP://…`.
            try build(base: base, baseText: baseText, path: path, queryItems: queryItems).withLowercaseSchemeAndHost()
        }
    }

    /// The URLs built lately: a few hundred, a few dozen kilobytes.
    static let built = URLMemo(capacity: 256)

    /// ``url(base:path:queryItems:)``, built; `baseText` is `base.absoluteString`.
    private static func build(base: URL, baseText: String, path: String, queryItems: [URLQueryItem]) throws -> URL {
        try rejectDotSegments(in: path)
        if let url = joinedText(base: baseText, path: path, queryItems: queryItems) { return url }
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: true),
            let scheme = components.scheme, !scheme.isEmpty,
            components.host?.isEmpty == false
        else {
            throw KringleError.invalidRequest(
                "The base URL \"\(base.absoluteString)\" is not an absolute URL with a host.")
        }
        let suffix = path.hasPrefix("/") ? String(path.dropFirst()) : path
        if !suffix.isEmpty {
            let prefix =
                components.percentEncodedPath.hasSuffix("/")
                ? String(components.percentEncodedPath.dropLast())
                : components.percentEncodedPath
            components.percentEncodedPath = prefix + "/" + PercentEncoding.path(suffix)
        }
        if !queryItems.isEmpty {
            let added = query(queryItems)
            components.percentEncodedQuery = components.percentEncodedQuery.map { $0 + "&" + added } ?? added
        }
        guard let url = components.url else {
            throw KringleError.invalidRequest(
                "No valid URL forms from base \"\(base.absoluteString)\" and path \"\(path)\".")
        }
        return url
    }

    /// The same URL, joined as text and parsed once, for the usual base (http or https, a
    /// host, no user info, query or fragment); `nil` for any other, which goes through
    /// `URLComponents`. Parsing the base into components and the result back costs more
    /// than the rest of building a request.
    private static func joinedText(base baseText: String, path: String, queryItems: [URLQueryItem]) -> URL? {
        guard isPlainHTTPBase(baseText) else { return nil }
        // A leading slash is kept by the encoding, so the whole path is encoded (a suffix
        // would be copied into a string of its own first).
        let encodedPath = PercentEncoding.path(path)
        // Even items that join to nothing (one nameless item) make a query: the `?` stays.
        let hasQuery = !queryItems.isEmpty
        let queryText = hasQuery ? query(queryItems) : ""
        let slash = UInt8(ascii: "/")
        let text = baseText.withContiguousUTF8 { base in
            encodedPath.withContiguousUTF8 { encoded in
                queryText.withContiguousUTF8 { query -> String? in
                    let path = encoded.first == slash ? encoded.dropFirst() : encoded[...]
                    guard !path.isEmpty || hasQuery else { return nil }
                    // The base's own trailing slash gives way to the one before the path.
                    let basePart = !path.isEmpty && base.last == slash ? base.dropLast() : base[...]
                    let question = UInt8(ascii: "?")
                    let count =
                        basePart.count + (path.isEmpty ? 0 : 1 + path.count) + (hasQuery ? 1 + query.count : 0)
                    // One allocation, the bytes copied once.
                    return String(unsafeUninitializedCapacity: count) { buffer in
                        var written = 0
                        func append(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, after separator: UInt8?) {
                            if let separator {
                                buffer[written] = separator
                                written += 1
                            }
                            for byte in bytes {
                                buffer[written] = byte
                                written += 1
                            }
                        }
                        append(basePart, after: nil)
                        if !path.isEmpty { append(path, after: slash) }
                        if hasQuery { append(query[...], after: question) }
                        return written
                    }
                }
            }
        }
        return URL(string: text ?? baseText)
    }

    /// Whether `text` reads `http://` or `https://` (in any case), then an authority that
    /// starts with its host (no user info, no empty host), then at most a path: no `?` or
    /// `#` anywhere. Byte by byte, as it runs for every request: asking the `URL` for its
    /// scheme, host, query and fragment parses each out again.
    private static func isPlainHTTPBase(_ text: String) -> Bool {
        text.withContiguousUTF8 { bytes in
            let schemeLength: Int
            if starts(bytes, caseInsensitivelyWith: "https://") {
                schemeLength = 8
            } else if starts(bytes, caseInsensitivelyWith: "http://") {
                schemeLength = 7
            } else {
                return false
            }
            let afterScheme = bytes[schemeLength...]
            let authority = afterScheme.prefix { $0 != UInt8(ascii: "/") }
            guard let first = authority.first, first != UInt8(ascii: ":"), !authority.contains(UInt8(ascii: "@"))
            else {
                return false
            }
            return !afterScheme.contains { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        }
    }

    /// Whether `bytes` start with the lowercase ASCII `prefix`, in any case.
    private static func starts(_ bytes: UnsafeBufferPointer<UInt8>, caseInsensitivelyWith prefix: StaticString) -> Bool
    {
        prefix.withUTF8Buffer { expected in
            guard bytes.count >= expected.count else { return false }
            for index in 0..<expected.count {
                let byte = bytes[index]
                let lowercase = expected[index]
                guard byte == lowercase || (byte | 0x20 == lowercase && lowercase >= UInt8(ascii: "a")) else {
                    return false
                }
            }
            return true
        }
    }

    /// Throws when a segment of `path` is `.` or `..`, plainly or percent-encoded: a value
    /// such as `"../../admin"` interpolated into a path would otherwise let the server (or
    /// libcurl, which removes dot segments, RFC 3986 §5.2.4) reach another resource.
    /// Segments end at `/`, and also at `\`, `%2F` and `%5C`, which some servers decode or
    /// take for a separator before they route. Byte by byte, in place, as it runs for every
    /// request.
    private static func rejectDotSegments(in path: String) throws {
        try path.withContiguousUTF8 { bytes in try rejectDotSegments(in: bytes, of: path) }
    }

    private static func rejectDotSegments(in bytes: UnsafeBufferPointer<UInt8>, of path: String) throws {
        var segmentStart = 0
        var index = 0
        while index <= bytes.count {
            let separator = separatorLength(in: bytes, at: index)
            guard index == bytes.count || separator > 0 else {
                index += 1
                continue
            }
            if isDotSegment(bytes[segmentStart..<index]) {
                throw KringleError.invalidRequest(
                    "The path \"\(path)\" has a \"\(String(decoding: bytes[segmentStart..<index], as: UTF8.self))\" "
                        + "segment, which would reach another resource; interpolate values from users with "
                        + "\\(pathSegment:).")
            }
            index += max(separator, 1)
            segmentStart = index
        }
    }

    /// The length of the separator at `index` (`/`, `\`, `%2F` or `%5C`), or 0.
    private static func separatorLength(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        guard index < bytes.count else { return 0 }
        if bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "\\") { return 1 }
        guard bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count else { return 0 }
        let escape = (bytes[index + 1], bytes[index + 2] | 0x20)
        return escape == (UInt8(ascii: "2"), UInt8(ascii: "f")) || escape == (UInt8(ascii: "5"), UInt8(ascii: "c"))
            ? 3 : 0
    }

    /// Whether `segment` is one or two dots, each either `.` or `%2E` (either case).
    private static func isDotSegment(_ segment: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var dots = 0
        var index = segment.startIndex
        while index < segment.endIndex {
            if segment[index] == UInt8(ascii: ".") {
                index += 1
            } else if segment[index] == UInt8(ascii: "%"), segment.endIndex - index >= 3,
                segment[index + 1] == UInt8(ascii: "2"), segment[index + 2] | 0x20 == UInt8(ascii: "e")
            {
                index += 3
            } else {
                return false
            }
            dots += 1
            if dots > 2 { return false }
        }
        return dots > 0
    }

    /// The query items percent-encoded strictly and joined with `&`.
    private static func query(_ items: [URLQueryItem]) -> String {
        items.map { item in
            let name = PercentEncoding.queryComponent(item.name)
            return item.value.map { name + "=" + PercentEncoding.queryComponent($0) } ?? name
        }.joined(separator: "&")
    }
}
