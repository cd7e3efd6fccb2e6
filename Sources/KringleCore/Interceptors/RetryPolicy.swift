import Foundation

/// Retries what is safe to retry, with exponential backoff and jitter, honouring
/// `Retry-After`.
///
/// By default it retries only idempotent methods (GET, HEAD, PUT, DELETE, OPTIONS), and
/// requests that carry an `Idempotency-Key` (``idempotencyKeyMethods``,
/// ``Endpoint/sendsIdempotencyKey``), on
/// 408, 429, 500, 502, 503 and 504, and on every failure where no complete, valid response
/// arrived: a time-out, a lost or refused connection, a DNS failure, a response cut short
/// (``KringleError/incompleteResponse(_:received:expected:underlying:)``) or one that is not
/// HTTP (``KringleError/malformedResponse(_:reason:)``). RFC 9110 §9.2.2 lets a client send
/// an idempotent request again when the connection fails before it has the response.
///
/// ```swift
/// var configuration = NetworkClient.Configuration()
/// configuration.interceptors = [RetryPolicy(baseDelay: 0.2, maximumDelay: 5)]
/// configuration.maxRetryCount = 4
/// ```
/// The number of retries is capped by the client's `maxRetryCount`, not by the policy, and
/// across calls by its ``NetworkClient/Configuration-swift.struct/retryBudget``; no retry
/// starts after the call's deadline.
///
/// A POST is retried only with an `Idempotency-Key`, which the server uses to apply it once:
/// ```swift
/// configuration.interceptors = [RetryPolicy(idempotencyKeyMethods: [.post])]
/// ```
public struct RetryPolicy: RequestInterceptor {
    /// Methods that may be retried.
    public var retryableMethods: Set<HTTPMethod>
    /// Methods that are not idempotent but may be retried with an `Idempotency-Key` header,
    /// which the client adds to each of their calls (a new key per call, the same on every
    /// attempt). None by default.
    public var idempotencyKeyMethods: Set<HTTPMethod>
    /// Status codes that may be retried.
    public var retryableStatusCodes: Set<Int>
    /// The first backoff delay, in seconds; each retry doubles it.
    public var baseDelay: TimeInterval
    /// The longest delay, in seconds, for backoff and for `Retry-After` alike.
    public var maximumDelay: TimeInterval
    /// Where an HTTP-date `Retry-After` is compared with the time; the real clock by default.
    /// (The delay itself runs on the client's clock.)
    public var clock: any KringleClock

    /// Creates a policy.
    public init(
        retryableMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options],
        idempotencyKeyMethods: Set<HTTPMethod> = [],
        retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        baseDelay: TimeInterval = 0.5,
        maximumDelay: TimeInterval = 30,
        clock: any KringleClock = .system
    ) {
        self.retryableMethods = retryableMethods
        self.idempotencyKeyMethods = idempotencyKeyMethods
        self.retryableStatusCodes = retryableStatusCodes
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.clock = clock
    }

    /// Decides whether a failed attempt is sent again, and after how long.
    ///
    /// - Parameters:
    ///   - request: The request as it was sent; only ``retryableMethods``, and requests
    ///     with an `Idempotency-Key`, are retried.
    ///   - error: Why it failed: a status in ``retryableStatusCodes``, a time-out, a
    ///     response cut short or malformed, or a ``TransportFailure`` whose request never
    ///     completed leads to a retry.
    ///   - attempt: The number of the attempt that failed, from 1; the backoff doubles with it.
    /// - Returns: ``RetryDecision/retryAfter(_:)`` with the backoff (or the server's
    ///   `Retry-After`, capped by ``maximumDelay``), or ``RetryDecision/doNotRetry``.
    public func retry(_ request: HTTPRequest, dueTo error: any Error, attempt: Int) -> Promise<RetryDecision> {
        Promise(decision(for: request, dueTo: error, attempt: attempt, now: clock.now))
    }

    func decision(for request: HTTPRequest, dueTo error: any Error, attempt: Int, now: Date) -> RetryDecision {
        let method = HTTPMethod(rawValue: request.method.rawValue.uppercased())
        guard retryableMethods.contains(method) || request.headers[IdempotencyKey.field] != nil
        else { return .doNotRetry }
        switch error {
        case KringleError.unacceptableStatusCode(let status, let response) where retryableStatusCodes.contains(status):
            if let wait = RetryAfter.seconds(response.headers["Retry-After"], now: now) {
                return .retryAfter(min(wait, maximumDelay))
            }
            return .retryAfter(backoff(attempt))
        case KringleError.timedOut, KringleError.incompleteResponse, KringleError.malformedResponse:
            // A malformed answer is retried too: a middlebox or a keep-alive connection left
            // in a bad state sends it as often as a broken server, and `maxRetryCount`
            // bounds the cost of the latter.
            return .retryAfter(backoff(attempt))
        case KringleError.transport(let failure as any TransportFailure) where failure.requestNeverCompleted:
            return .retryAfter(backoff(attempt))
        default:
            return .doNotRetry
        }
    }

    /// "Equal jitter": half the exponential delay, plus a random part of the other half,
    /// so that many clients failing together do not retry together.
    func backoff(_ attempt: Int) -> TimeInterval {
        let exponential = min(maximumDelay, baseDelay * pow(2, Double(max(0, attempt - 1))))
        return exponential / 2 + Double.random(in: 0...(exponential / 2))
    }
}
