import Foundation

/// Builds the URL of an endpoint.
enum URLAssembly {
    /// `base` joined with `path`, then `queryItems` appended to any query `base` has.
    ///
    /// - Throws: ``KringleError/invalidRequest(_:)`` when no valid absolute URL forms.
    static func url(base: URL, path: String, queryItems: [URLQueryItem]) throws -> URL {
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
            let added = queryItems.map { item in
                PercentEncoding.queryComponent(item.name)
                    + (item.value.map { "=" + PercentEncoding.queryComponent($0) } ?? "")
            }
            let existing = components.percentEncodedQuery.map { [$0] } ?? []
            components.percentEncodedQuery = (existing + added).joined(separator: "&")
        }
        guard let url = components.url else {
            throw KringleError.invalidRequest(
                "No valid URL forms from base \"\(base.absoluteString)\" and path \"\(path)\".")
        }
        return url
    }
}
