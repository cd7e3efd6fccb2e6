import Foundation

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

    // Fileprivate: nothing but the `Redaction` methods below, in this file, may vouch for a
    // value.
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

// The only places a `Redacted` is made.
extension Redaction {
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
}
