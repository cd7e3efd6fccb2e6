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

    /// `headers` with the values of redacted names replaced by ``placeholder``, and the URLs
    /// in `Location`, `Content-Location` and `Referer` redacted as ``redacting(_:)-(URL)``
    /// does (a redirect to `…/callback?access_token=…` is a secret too).
    public func redacting(_ headers: HTTPHeaders) -> Redacted<HTTPHeaders> {
        Redacted(hidingSecrets(of: headers))
    }

    /// `url` with the values of redacted query items and its user info (the password, or a
    /// user name alone, which is often a token) replaced by ``placeholder``. A URL that cannot be taken
    /// apart is shown as its scheme and host alone, never as it is.
    public func redacting(_ url: URL) -> Redacted<URL> {
        Redacted(hidingSecrets(of: url))
    }

    /// `error` with the secrets it carries hidden, where the redaction can see them: a
    /// ``KringleError``'s URLs, and the URL, headers, trailers and per-exchange URLs of the
    /// response it keeps, redacted as ``redacting(_:)-(URL)`` and
    /// ``redacting(_:)-(HTTPHeaders)`` do, and the failing URL of a URLSession error it wraps;
    /// its description then shows them redacted too. Whatever else the error wraps (a
    /// ``CurlError``, a decoding error) and any other error are kept as they are: their
    /// contents are not the redaction's to rewrite. The error the caller gets is never changed.
    public func redacting(_ error: any Error) -> Redacted<any Error> {
        guard let error = error as? KringleError else { return Redacted(error) }
        return Redacted(error.redacted(with: self))
    }

    private func hidingSecrets(of headers: HTTPHeaders) -> HTTPHeaders {
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

    private func hidingSecrets(of url: URL) -> URL {
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

/// A value that has been through a ``Redaction``: what reaches a ``KringleLogger``.
///
/// Only a ``Redaction`` makes one (``Redaction/redacting(_:)-(URL)``,
/// ``Redaction/redacting(_:)-(HTTPHeaders)``, and the overload for errors), so a
/// ``KringleLogEvent`` cannot be built from a URL, headers or an error that skipped the
/// redaction: the rule "secrets never reach a log" is checked by the compiler, not by review.
/// With ``Redaction/disabled`` the value is the original, secrets and all; you chose that.
///
/// ```swift
/// func log(_ event: KringleLogEvent) {
///     if case .requestSent(_, let url, let headers) = event {
///         print(url, headers.value["Authorization"] ?? "")   // https://cats.example/cats?api_key=*** ***
///     }
/// }
/// ```
public struct Redacted<Value: Sendable>: Sendable, CustomStringConvertible {
    /// The value with its secrets hidden.
    public let value: Value

    // Fileprivate: nothing but a `Redaction`, in this file, may vouch for a value.
    fileprivate init(_ value: Value) {
        self.value = value
    }

    /// The value's own description (a URL's absolute string, a header list, an error's
    /// readable description), redacted since the value is.
    public var description: String {
        if let url = value as? URL { return url.absoluteString }
        return String(describing: value)
    }
}

extension Redacted: Equatable where Value: Equatable {}

extension Redacted: Hashable where Value: Hashable {}

extension URLRequest {
    /// The request's headers as ``HTTPHeaders``, sorted by name.
    var kringleHeaders: HTTPHeaders {
        HTTPHeaders(
            (allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }.map { ($0.key, $0.value) }
        )
    }
}
