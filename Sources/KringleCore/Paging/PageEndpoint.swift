import Foundation

/// A page after the first of a walk: the first page's endpoint, its headers, timeout and
/// other settings, at the URL a `Link` named or with a cursor's query items.
struct PageEndpoint: Endpoint {
    let first: any Endpoint
    let baseURL: URL
    let path: String
    let queryItems: [URLQueryItem]

    /// The page at `url`, a `Link` target: taken as the server wrote it, query and all.
    init(first: any Endpoint, url: URL) {
        self.first = first
        baseURL = url
        path = ""
        queryItems = []
    }

    /// The first page's request with `cursor`'s query items, which replace its own of the
    /// same names.
    init(first: any Endpoint, cursor: [URLQueryItem]) {
        self.first = first
        baseURL = first.baseURL
        path = first.path
        let replaced = Set(cursor.map(\.name))
        queryItems = first.queryItems.filter { !replaced.contains($0.name) } + cursor
    }

    var headers: [String: String] { first.headers }
    var credentialHeaders: Set<String> { first.credentialHeaders }
    var cachePolicy: CachePolicy { first.cachePolicy }
    var timeout: TimeInterval? { first.timeout }
}
