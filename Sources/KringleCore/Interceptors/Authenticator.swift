import Foundation

/// Knows how to apply and refresh one kind of credential, for an
/// ``AuthenticationInterceptor``.
///
/// ```swift
/// struct Token: Sendable { var access: String; var refresh: String }
///
/// struct BearerAuthenticator: Authenticator {
///     let client: NetworkClient   // a client without this interceptor
///     func apply(_ token: Token, to request: inout HTTPRequest) {
///         request.headers["Authorization"] = "Bearer \(token.access)"
///     }
///     func refresh(_ token: Token) -> Promise<Token> {
///         client.post(["refreshToken": token.refresh], to: AuthEndpoint.refresh, as: Token.self)
///     }
/// }
/// ```
public protocol Authenticator: Sendable {
    /// The credential, such as a pair of tokens.
    associatedtype Credential: Sendable

    /// Puts `credential` on `request`.
    func apply(_ credential: Credential, to request: inout HTTPRequest)

    /// The headers `apply` writes, dropped when a redirect leads to another origin;
    /// `Authorization` by default (which is always dropped).
    var credentialHeaders: Set<String> { get }

    /// Gets a new credential to replace `credential`.
    func refresh(_ credential: Credential) -> Promise<Credential>

    /// Whether `error` means the credential was refused; by default a 401 response.
    func isAuthenticationFailure(_ error: any Error) -> Bool

    /// Whether `request` was sent with `credential`; by default, whether applying
    /// `credential` would leave its headers unchanged.
    func isRequest(_ request: HTTPRequest, authenticatedWith credential: Credential) -> Bool
}

extension Authenticator {
    /// `Authorization`.
    public var credentialHeaders: Set<String> { ["Authorization"] }

    /// Whether `error` is a 401 response
    /// (``KringleError/unacceptableStatusCode(_:_:)`` with status 401).
    public func isAuthenticationFailure(_ error: any Error) -> Bool {
        if case KringleError.unacceptableStatusCode(401, _) = error { return true }
        return false
    }

    /// Whether applying `credential` to `request` again would leave its headers unchanged.
    public func isRequest(_ request: HTTPRequest, authenticatedWith credential: Credential) -> Bool {
        var reapplied = request
        apply(credential, to: &reapplied)
        return reapplied.headers == request.headers
    }
}
