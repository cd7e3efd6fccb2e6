import Foundation
@_spi(KringleInternals) import KringlePromise

/// Applies a credential to every request and refreshes it when the server refuses it.
///
/// - Every request gets the current credential; while a refresh runs, new requests wait
///   for it.
/// - A request refused with the current credential (a 401 by default) starts one refresh
///   and is retried with the new credential. Requests that fail while that refresh is in
///   flight wait for the same refresh: there is never more than one at a time.
/// - A request refused with an older credential is simply retried with the current one.
/// - If the refresh fails, every waiting request fails with the refresh's error.
/// - A credential refused within `refreshWindow` seconds of its own refresh is not
///   refreshed again, so a server that refuses everything cannot cause a refresh loop.
///
/// ```swift
/// let auth = AuthenticationInterceptor(authenticator: BearerAuthenticator(client: plainClient), credential: token)
/// let api = plainClient.newClient(withAdditionalInterceptors: [auth], maxRetryCount: 2)
/// ```
public final class AuthenticationInterceptor<Base: Authenticator>: RequestInterceptor {
    private struct State: Sendable {
        var credential: Base.Credential
        var refreshing: Promise<Base.Credential>?
        /// The clock's uptime at the last successful refresh.
        var lastRefresh: UInt64?
    }

    private let authenticator: Base
    private let refreshWindow: TimeInterval
    private let state: Locked<State>
    private let clock: any KringleClock

    /// Creates an interceptor.
    ///
    /// - Parameters:
    ///   - authenticator: Applies and refreshes the credential.
    ///   - credential: The credential to start with.
    ///   - refreshWindow: Seconds after a refresh during which the new credential being
    ///     refused fails the request instead of refreshing again.
    ///   - clock: Where the refresh window is measured; the real clock by default.
    public init(
        authenticator: Base,
        credential: Base.Credential,
        refreshWindow: TimeInterval = 30,
        clock: any KringleClock = .system
    ) {
        self.authenticator = authenticator
        self.refreshWindow = refreshWindow
        self.clock = clock
        state = Locked(State(credential: credential))
    }

    /// The authenticator's ``Authenticator/credentialHeaders``.
    public var credentialHeaders: Set<String> { authenticator.credentialHeaders }

    /// The credential requests get now.
    public var credential: Base.Credential {
        state.withLock { $0.credential }
    }

    /// Applies the current credential to `request`, waiting first for a refresh in flight.
    ///
    /// - Returns: The request with the credential; it rejects when the refresh it waited for
    ///   failed.
    public func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest> {
        let (credential, refreshing) = state.withLock { ($0.credential, $0.refreshing) }
        let authenticator = authenticator
        guard let refreshing else {
            var request = request
            authenticator.apply(credential, to: &request)
            return Promise(request)
        }
        return Self.shielded(refreshing).map { fresh in
            var request = request
            authenticator.apply(fresh, to: &request)
            return request
        }
    }

    /// Asks for a retry when `error` means the credential was refused, refreshing it first
    /// if the request carried the current one.
    ///
    /// - Parameters:
    ///   - request: The request as it was sent.
    ///   - error: Why it failed; only an authentication failure (see
    ///     ``Authenticator/isAuthenticationFailure(_:)``) leads to a retry.
    ///   - attempt: The number of the attempt that failed, from 1.
    /// - Returns: ``RetryDecision/retry`` once a credential is ready,
    ///   ``RetryDecision/doNotRetry`` for other errors or a credential refused within the
    ///   refresh window; it rejects with the refresh's error when the refresh fails.
    public func retry(_ request: HTTPRequest, dueTo error: any Error, attempt: Int) -> Promise<RetryDecision> {
        guard authenticator.isAuthenticationFailure(error), !Self.cameFromAnotherOrigin(error, than: request) else {
            return Promise(.doNotRetry)
        }
        let refusedAt = clock.uptimeNanoseconds
        let action: RefreshAction = state.withLock { state in
            if let refreshing = state.refreshing { return .wait(refreshing) }
            guard authenticator.isRequest(request, authenticatedWith: state.credential) else {
                return .retryNow  // refused with an older credential: the current one is newer
            }
            if let last = state.lastRefresh, Double(refusedAt &- last) / 1e9 < refreshWindow { return .giveUp }
            let refreshing = Promise<Base.Credential>.pending()
            state.refreshing = refreshing
            return .start(refreshing, state.credential)
        }
        switch action {
        case .retryNow:
            return Promise(.retry)
        case .giveUp:
            return Promise(.doNotRetry)
        case .wait(let refreshing):
            return Self.shielded(refreshing).map { _ in RetryDecision.retry }
        case .start(let refreshing, let stale):
            // Started outside the lock: a refresh that settles at once would otherwise
            // re-enter it.
            _ = authenticator.refresh(stale).mapResultInline { [self] result in
                state.withLock { state in
                    state.refreshing = nil
                    if case .success(let fresh) = result {
                        state.credential = fresh
                        state.lastRefresh = clock.uptimeNanoseconds
                    }
                }
                refreshing.resolve(result)
            }
            return Self.shielded(refreshing).map { _ in RetryDecision.retry }
        }
    }

    /// Whether `error` is a refusal by a server the request was redirected to on another
    /// origin: that server never saw the credential (it is dropped across origins), so its
    /// 401 says nothing about it, and refreshing would only hand a third party a reason to
    /// make the client churn tokens.
    private static func cameFromAnotherOrigin(_ error: any Error, than request: HTTPRequest) -> Bool {
        guard case .unacceptableStatusCode(_, let response)? = error as? KringleError else { return false }
        return !Redirect.sameOrigin(request.url, response.url)
    }

    private enum RefreshAction: Sendable {
        case retryNow
        case giveUp
        case wait(Promise<Base.Credential>)
        case start(Promise<Base.Credential>, Base.Credential)
    }

    /// A promise settled like `shared` that cancellation does not travel through: one
    /// waiting request giving up must not cancel the refresh the others wait for.
    private static func shielded<T>(_ shared: Promise<T>) -> Promise<T> {
        let own = Promise<T>.pending()
        _ = shared.mapResultInline { own.resolve($0) }
        return own
    }
}
