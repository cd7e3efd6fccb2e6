import Foundation

/// Builds the URL of an endpoint.
enum URLAssembly {
    /// `base` joined with `path`, then `queryItems` appended to any query `base` has.
    ///
    /// - Throws: ``KringleError/invalidRequest(_:)`` when no valid absolute URL forms.
    static func url(base: URL, path: String, queryItems: [URLQueryItem]) throws -> URL {
        try rejectDotSegments(in: path)
        if let url = joinedText(base: base, path: path, queryItems: queryItems) { return url }
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
    /// host, no query, no fragment); `nil` for any other, which goes through
    /// `URLComponents`. Parsing the base into components and the result back costs more
    /// than the rest of building a request.
    private static func joinedText(base: URL, path: String, queryItems: [URLQueryItem]) -> URL? {
        guard base.query == nil, base.fragment == nil, let scheme = base.scheme?.lowercased(),
            scheme == "http" || scheme == "https", base.host?.isEmpty == false
        else { return nil }
        var text = base.absoluteString
        let suffix = path.hasPrefix("/") ? path.dropFirst() : Substring(path)
        if !suffix.isEmpty {
            if text.hasSuffix("/") { text.removeLast() }
            text += "/" + PercentEncoding.path(String(suffix))
        }
        if !queryItems.isEmpty {
            text += "?" + query(queryItems)
        }
        return URL(string: text)
    }

    /// The query items percent-encoded strictly and joined with `&`.
    /// Throws when a segment of `path` is `.` or `..`, plainly or percent-encoded: a value
    /// such as `"../../admin"` interpolated into a path would otherwise let the server (or
    /// libcurl, which removes dot segments, RFC 3986 §5.2.4) reach another resource.
    /// Byte by byte, as it runs for every request.
    private static func rejectDotSegments(in path: String) throws {
        let bytes = path.utf8
        var segmentStart = bytes.startIndex
        while segmentStart <= bytes.endIndex {
            let segmentEnd = bytes[segmentStart...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
            if isDotSegment(bytes[segmentStart..<segmentEnd]) {
                throw KringleError.invalidRequest(
                    "The path \"\(path)\" has a \"\(String(decoding: bytes[segmentStart..<segmentEnd], as: UTF8.self))\" "
                        + "segment, which would reach another resource; interpolate values from users with "
                        + "\\(pathSegment:).")
            }
            guard segmentEnd < bytes.endIndex else { break }
            segmentStart = bytes.index(after: segmentEnd)
        }
    }

    /// Whether `segment` is one or two dots, each either `.` or `%2E` (either case).
    private static func isDotSegment(_ segment: Substring.UTF8View) -> Bool {
        var dots = 0
        var index = segment.startIndex
        while index < segment.endIndex {
            if segment[index] == UInt8(ascii: ".") {
                index = segment.index(after: index)
            } else if segment[index] == UInt8(ascii: "%"), segment.distance(from: index, to: segment.endIndex) >= 3,
                segment[segment.index(index, offsetBy: 1)] == UInt8(ascii: "2"),
                segment[segment.index(index, offsetBy: 2)] | 0x20 == UInt8(ascii: "e")
            {
                index = segment.index(index, offsetBy: 3)
            } else {
                return false
            }
            dots += 1
            if dots > 2 { return false }
        }
        return dots > 0
    }

    private static func query(_ items: [URLQueryItem]) -> String {
        items.map { item in
            let name = PercentEncoding.queryComponent(item.name)
            return item.value.map { name + "=" + PercentEncoding.queryComponent($0) } ?? name
        }.joined(separator: "&")
    }
}
