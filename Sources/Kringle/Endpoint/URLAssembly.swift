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
    private static func rejectDotSegments(in path: String) throws {
        guard path.contains(".") || path.contains("%") else { return }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            let decoded = segment.removingPercentEncoding ?? String(segment)
            guard decoded == "." || decoded == ".." else { continue }
            throw KringleError.invalidRequest(
                "The path \"\(path)\" has a \"\(segment)\" segment, which would reach another resource; "
                    + "interpolate values from users with \\(pathSegment:).")
        }
    }

    private static func query(_ items: [URLQueryItem]) -> String {
        items.map { item in
            let name = PercentEncoding.queryComponent(item.name)
            return item.value.map { name + "=" + PercentEncoding.queryComponent($0) } ?? name
        }.joined(separator: "&")
    }
}
