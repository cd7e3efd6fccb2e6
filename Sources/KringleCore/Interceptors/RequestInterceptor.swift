import Foundation

/// Sees every request a ``NetworkClient`` sends, and every failure it could retry.
///
/// Both hooks have defaults (pass the request on; do not retry), so an interceptor
/// implements only what it needs:
/// ```swift
/// struct APIKey: RequestInterceptor {
///     let key: String
///     var credentialHeaders: Set<String> { ["X-API-Key"] }   // never sent to another origin
///     func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest> {
///         var request = request
///         request.headers["X-API-Key"] = key
///         return Promise(request)
///     }
/// }
/// ```
/// `adapt` runs for every attempt of a call, interceptors in order, so a retried request
/// picks up a refreshed token. `retry` is asked after the whole response is known (status
/// and body), interceptors in order; the first that asks for a retry wins. The number of
/// retries per call is capped by ``NetworkClient/Configuration-swift.struct/maxRetryCount``.
public protocol RequestInterceptor: Sendable {
    /// Returns the request to send: add headers, sign it, refresh a token first.
    /// A rejection fails the call with that error.
    func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest>

    /// The headers `adapt` puts a credential in (`X-API-Key`, a signature), which the client
    /// drops when a redirect leads to another origin, as it always does `Authorization`,
    /// `Proxy-Authorization` and `Cookie`. None by default.
    var credentialHeaders: Set<String> { get }

    /// The methods whose every call carries an `Idempotency-Key` header, made once per call
    /// and sent unchanged on every attempt (see ``Endpoint/sendsIdempotencyKey``), so that
    /// this interceptor may retry them safely. None by default.
    var idempotencyKeyMethods: Set<HTTPMethod> { get }

    /// Decides whether a failed attempt should be sent again.
    ///
    /// - Parameters:
    ///   - request: The request as it was sent (after every interceptor's `adapt`).
    ///   - error: Why the attempt failed: a ``KringleError`` such as
    ///     ``KringleError/unacceptableStatusCode(_:_:)`` (with the whole response) or
    ///     ``KringleError/transport(_:)``.
    ///   - attempt: The number of the attempt that failed, from 1.
    /// - Returns: The decision; a rejection fails the call with that error.
    func retry(_ request: HTTPRequest, dueTo error: any Error, attempt: Int) -> Promise<RetryDecision>
}

extension RequestInterceptor {
    /// None.
    public var credentialHeaders: Set<String> { [] }

    /// None.
    public var idempotencyKeyMethods: Set<HTTPMethod> { [] }

    /// Passes the request on unchanged.
    public func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest> {
        Promise(request)
    }

    /// Never retries.
    public func retry(_ request: HTTPRequest, dueTo error: any Error, attempt: Int) -> Promise<RetryDecision> {
        Promise(.doNotRetry)
    }
}
