import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the client keeps out of log events, error descriptions and
/// `URLRequest.curlDescription`: the values of secret headers, of secret query
/// items, and URL passwords.
///
/// The defaults are always redacted; what you configure comes on top of them:
/// ```swift
/// var configuration = NetworkClient.Configuration()
/// configuration.redaction.additionalHeaders.insert("X-API-Key")
/// configuration.redaction.additionalQueryItems.insert("session")
/// // Logged as https://cats.example/cats?api_key=***&session=***&page=2
/// ```
public struct Redaction: Sendable, Equatable {
    /// `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`.
    public static let defaultHeaders: Set<String> = [
        "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie",
    ]

    /// The query items that usually carry a secret: `api_key`, `apikey`, `key`, `token`,
    /// `access_token`, `refresh_token`, `password`, `secret`, `client_secret`, `signature`
    /// and `sig`.
    public static let defaultQueryItems: Set<String> = [
        "api_key", "apikey", "key", "token", "access_token", "refresh_token", "password", "secret",
        "client_secret", "signature", "sig",
    ]

    /// The defaults alone.
    public static let `default` = Redaction()

    /// Nothing at all: every secret shown. For debugging on your own machine only.
    public static let nothing = Redaction(includesDefaults: false)

    /// Header names (case-insensitive) redacted on top of ``defaultHeaders``.
    public var additionalHeaders: Set<String>
    /// Query item names (case-insensitive) redacted on top of ``defaultQueryItems``.
    public var additionalQueryItems: Set<String>
    private let includesDefaults: Bool

    /// The defaults plus the names given.
    public init(additionalHeaders: Set<String> = [], additionalQueryItems: Set<String> = []) {
        self.init(
            additionalHeaders: additionalHeaders, additionalQueryItems: additionalQueryItems, includesDefaults: true)
    }

    private init(additionalHeaders: Set<String> = [], additionalQueryItems: Set<String> = [], includesDefaults: Bool) {
        self.additionalHeaders = additionalHeaders
        self.additionalQueryItems = additionalQueryItems
        self.includesDefaults = includesDefaults
    }

    /// Every header name redacted, lower-cased.
    var headerNames: Set<String> {
        Self.lowercased((includesDefaults ? Self.defaultHeaders : []).union(additionalHeaders))
    }

    /// Every query item name redacted, lower-cased.
    var queryItemNames: Set<String> {
        Self.lowercased((includesDefaults ? Self.defaultQueryItems : []).union(additionalQueryItems))
    }

    /// `headers` with the values of redacted names replaced by `<redacted>`.
    public func redacting(_ headers: HTTPHeaders) -> HTTPHeaders {
        let names = headerNames
        guard !names.isEmpty else { return headers }
        return HTTPHeaders(
            headers.fields.map { field in
                (field.name, names.contains(field.name.lowercased()) ? "<redacted>" : field.value)
            })
    }

    /// `url` with the values of redacted query items and the password of its user info
    /// replaced by `***`.
    public func redacting(_ url: URL) -> URL {
        let names = queryItemNames
        guard includesDefaults || !names.isEmpty,
            url.query != nil || url.password != nil,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return url }
        if includesDefaults, components.percentEncodedPassword != nil {
            components.percentEncodedPassword = "***"
        }
        components.percentEncodedQueryItems = components.percentEncodedQueryItems?.map { item in
            let name = item.name.removingPercentEncoding ?? item.name
            guard item.value != nil, names.contains(name.lowercased()) else { return item }
            return URLQueryItem(name: item.name, value: "***")
        }
        return components.url ?? url
    }

    private static func lowercased(_ names: Set<String>) -> Set<String> {
        Set(names.map { $0.lowercased() })
    }
}

extension URLRequest {
    /// The request's headers as ``HTTPHeaders``, sorted by name.
    var kringleHeaders: HTTPHeaders {
        HTTPHeaders(
            (allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }.map { ($0.key, $0.value) }
        )
    }
}
