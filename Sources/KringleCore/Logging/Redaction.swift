import Foundation

/// What the client keeps out of log events, error descriptions and
/// ``HTTPRequest/curlDescription``: the values of secret headers, of secret query
/// items, and URL passwords.
///
/// The defaults are always redacted; what you configure comes on top of them:
/// ```swift
/// var configuration = NetworkClient.Configuration()
/// configuration.redaction.additionalHeaderNames.insert("X-API-Key")
/// configuration.redaction.additionalQueryItemNames.insert("session")
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

    /// The text that replaces a secret, everywhere Kringle hides one: header values, query
    /// values and URL user info in logs, errors and `curlDescription`, and everything a
    /// cassette hides (`KringleTesting.CassetteRedaction`). It needs no percent-encoding in a
    /// query or in user info (RFC 3986 §2.2: `*` is a sub-delimiter), so a redacted URL reads
    /// `https://ann:***@cats.example/cats?api_key=***`, not `%3Credacted%3E`.
    public static let placeholder = "***"

    /// The defaults alone.
    public static let `default` = Redaction()

    /// Nothing at all: every secret shown. For debugging on your own machine only.
    public static let disabled = Redaction(includesDefaults: false)

    /// Header names (case-insensitive) redacted on top of ``defaultHeaders``.
    public var additionalHeaderNames: Set<String>
    /// Query item names (case-insensitive) redacted on top of ``defaultQueryItems``.
    public var additionalQueryItemNames: Set<String>
    private let includesDefaults: Bool

    /// The defaults plus the names given.
    public init(additionalHeaderNames: Set<String> = [], additionalQueryItemNames: Set<String> = []) {
        self.init(
            additionalHeaderNames: additionalHeaderNames, additionalQueryItemNames: additionalQueryItemNames,
            includesDefaults: true)
    }

    private init(
        additionalHeaderNames: Set<String> = [], additionalQueryItemNames: Set<String> = [], includesDefaults: Bool
    ) {
        self.additionalHeaderNames = additionalHeaderNames
        self.additionalQueryItemNames = additionalQueryItemNames
        self.includesDefaults = includesDefaults
    }

    /// Every header name redacted, lower-cased.
    var headerNames: Set<String> {
        Self.lowercased((includesDefaults ? Self.defaultHeaders : []).union(additionalHeaderNames))
    }

    /// Every query item name redacted, lower-cased.
    var queryItemNames: Set<String> {
        Self.lowercased((includesDefaults ? Self.defaultQueryItems : []).union(additionalQueryItemNames))
    }

    /// `headers` with the secrets hidden; ``redacting(_:)-(HTTPHeaders)`` wraps the result in
    /// a ``Redacted``.
    func hidingSecrets(of headers: HTTPHeaders) -> HTTPHeaders {
        let names = headerNames
        guard !names.isEmpty || includesDefaults else { return headers }
        return HTTPHeaders(
            headers.fields.map { field in
                let name = field.name.lowercased()
                if names.contains(name) { return (field.name, Self.placeholder) }
                guard Self.urlHeaders.contains(name), let url = URL(string: field.value) else {
                    return (field.name, field.value)
                }
                return (field.name, hidingSecrets(of: url).absoluteString)
            })
    }

    /// Headers whose value is a URL (RFC 9110 §10.2.2, §8.7; §10.1.3).
    private static let urlHeaders: Set<String> = ["location", "content-location", "referer"]

    /// `url` with the secrets hidden; ``redacting(_:)-(URL)`` wraps the result in a
    /// ``Redacted``.
    func hidingSecrets(of url: URL) -> URL {
        let names = queryItemNames
        guard includesDefaults || !names.isEmpty,
            url.query != nil || url.user != nil || url.password != nil
        else { return url }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return Self.masked(url)
        }
        if includesDefaults {
            if components.percentEncodedPassword != nil {
                components.percentEncodedPassword = Self.placeholder
            } else if components.percentEncodedUser != nil {
                components.percentEncodedUser = Self.placeholder
            }
        }
        components.percentEncodedQueryItems = components.percentEncodedQueryItems?.map { item in
            let name = item.name.removingPercentEncoding ?? item.name
            guard item.value != nil, names.contains(name.lowercased()) else { return item }
            return URLQueryItem(name: item.name, value: Self.placeholder)
        }
        return components.url ?? Self.masked(url)
    }

    /// Scheme and host, the rest replaced by ``placeholder``.
    private static func masked(_ url: URL) -> URL {
        URL(string: "\(url.scheme ?? "unknown")://\(url.host ?? "unknown")/\(placeholder)")
            ?? URL(fileURLWithPath: "/" + placeholder)
    }

    private static func lowercased(_ names: Set<String>) -> Set<String> {
        Set(names.map { $0.lowercased() })
    }
}
