import Foundation
import Kringle
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
import KringleTestSupport
#endif

// Helpers for the interceptor, retry, authentication, logging and callback tests. Every name
// starts with `Interceptor` so that nothing clashes with the other folders of the
// `KringleTests` module.

/// The stub transport's base URL.
let interceptorStubBase = URL(string: "https://stub.example")!

/// An interceptor that appends its name to the `X-Adapted-By` header, and records what its
/// `retry` hook was asked and what it answered.
struct InterceptorTagger: RequestInterceptor {
    let name: String
    var decide: @Sendable (_ attempt: Int, _ error: any Error) -> RetryDecision = { _, _ in .doNotRetry }
    let retryLog = Box<[String]>([])

    func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest> {
        var request = request
        let previous = request.headers["X-Adapted-By"]
        request.headers["X-Adapted-By"] = previous.map { "\($0),\(name)" } ?? name
        return Promise(request)
    }

    func retry(_ request: HTTPRequest, dueTo error: any Error, attempt: Int) -> Promise<RetryDecision> {
        retryLog.withLock { $0.append("\(name)#\(attempt)") }
        return Promise(decide(attempt, error))
    }
}

/// An interceptor that only uses the protocol's default hooks.
struct InterceptorDefaultsOnly: RequestInterceptor {}

/// A logger that keeps every event and can react to them as they happen.
final class InterceptorEventLog: KringleLogger {
    private let storage = Box<[KringleLogEvent]>([])
    private let onEvent: @Sendable (KringleLogEvent) -> Void

    init(onEvent: @escaping @Sendable (KringleLogEvent) -> Void = { _ in }) {
        self.onEvent = onEvent
    }

    func log(_ event: KringleLogEvent) {
        storage.withLock { $0.append(event) }
        onEvent(event)
    }

    var events: [KringleLogEvent] {
        storage.withLock { $0 }
    }

    var sent: [(method: String, url: URL, headers: HTTPHeaders)] {
        events.compactMap { event in
            if case .requestSent(let method, let url, let headers) = event { return (method, url.value, headers.value) }
            return nil
        }
    }

    var received:
        [(method: String, url: URL, statusCode: Int, duration: TimeInterval, bodySize: Int, headers: HTTPHeaders)]
    {
        events.compactMap { event in
            if case .responseReceived(let method, let url, let status, let duration, let size, let headers, _) = event {
                return (method, url.value, status, duration, size, headers.value)
            }
            return nil
        }
    }

    var retries: [(method: String, url: URL, attempt: Int, reason: any Error, delay: TimeInterval)] {
        events.compactMap { event in
            if case .retry(let method, let url, let attempt, let reason, let delay) = event {
                return (method, url.value, attempt, reason.value, delay)
            }
            return nil
        }
    }

    var failures: [(method: String, url: URL, error: any Error)] {
        events.compactMap { event in
            if case .failure(let method, let url, let error) = event { return (method, url.value, error.value) }
            return nil
        }
    }
}

/// An error of the tests' own.
struct InterceptorTestError: Error, Equatable, CustomStringConvertible {
    var label: String
    var description: String { "InterceptorTestError(\(label))" }
}

/// A transport whose responses the test releases by hand: every request waits until the
/// test answers it, so "all requests are in flight" is a fact, not a timing hope.
final class InterceptorGatedTransport: Transport {
    private let pending = Box<[(request: HTTPRequest, promise: Promise<HTTPResponse>)]>([])
    /// Answers requests at once instead of holding them, when it returns a response.
    private let immediate: @Sendable (HTTPRequest) -> HTTPResponse?

    init(immediate: @escaping @Sendable (HTTPRequest) -> HTTPResponse? = { _ in nil }) {
        self.immediate = immediate
    }

    func send(_ request: ValidatedRequest) -> Promise<HTTPResponse> {
        if let response = immediate(request.request) { return Promise(response) }
        let promise = Promise<HTTPResponse>.pending()
        pending.withLock { $0.append((request.request, promise)) }
        return promise
    }

    /// How many requests wait for an answer.
    var waitingCount: Int {
        pending.withLock { $0.count }
    }

    /// Answers every waiting request with `status`.
    func releaseAll(status: Int) {
        let taken = pending.withLock { pending in
            defer { pending = [] }
            return pending
        }
        for (request, promise) in taken {
            promise.fulfill(HTTPResponse(statusCode: status, url: request.url))
        }
    }
}

/// Cancels a call a fixed time after its first retry was scheduled, from a Dispatch thread,
/// so that the moment does not depend on when a (possibly busy) cooperative thread resumes
/// the test. Records how many requests had been sent by then, so a test can check that the
/// cancellation really landed inside the retry delay.
final class InterceptorDelayedCanceller: Sendable {
    /// What cancelling does (cancel a promise, dispose a handle); set once the call exists.
    let cancel = Box<(@Sendable () -> Void)?>(nil)
    /// The request count when the cancellation ran.
    let requestsAtCancel = Box<Int?>(nil)
    /// Fulfilled once the cancellation has run.
    let done = Promise<Void>.pending()
    private let armed = Box(true)
    private let seconds: TimeInterval
    private let requestCount: @Sendable () -> Int

    private static let queue = DispatchQueue(label: "interceptor-tests.canceller")

    init(after seconds: TimeInterval, requestCount: @escaping @Sendable () -> Int) {
        self.seconds = seconds
        self.requestCount = requestCount
    }

    /// A logger that arms the cancellation at the first retry event.
    func logger() -> InterceptorEventLog {
        InterceptorEventLog { event in
            guard case .retry = event,
                self.armed.withLock({ armed in
                    defer { armed = false }; return armed
                })
            else { return }
            // A serial queue of its own: the global queues can be busy for seconds while the
            // whole suite runs in parallel, which would push the cancel past the delay.
            Self.queue.asyncAfter(deadline: .now() + self.seconds) {
                self.requestsAtCancel.withLock { $0 = self.requestCount() }
                self.cancel.value?()
                self.done.fulfill(())
            }
        }
    }
}

/// A client on `transport` with these interceptors, retry limit, logger and retry budget.
func interceptedClient(
    _ transport: any Transport,
    interceptors: [any RequestInterceptor],
    maxRetryCount: Int?,
    logger: (any KringleLogger)?,
    retryBudget: RetryBudget? = RetryBudget()
) -> NetworkClient {
    var configuration = NetworkClient.Configuration()
    configuration.interceptors = interceptors
    configuration.maxRetryCount = maxRetryCount
    configuration.logger = logger
    configuration.retryBudget = retryBudget
    return NetworkClient(configuration: configuration, transport: transport)
}

extension KringleLogEvent {
    /// The event's kind, with the status where it has one, for tests that list what was logged.
    var kind: String {
        switch self {
        case .requestSent: return "sent"
        case .responseReceived(_, _, let status, _, _, _, _): return "received \(status)"
        case .cacheAnswered(_, _, let status, let cacheStatus): return "cache \(cacheStatus) \(status)"
        case .retry: return "retry"
        case .retryDenied(_, _, _, _, let denial): return "retry denied \(denial)"
        case .hostPaused(let host, _, let status): return "paused \(host) after \(status)"
        case .failure: return "failure"
        case .requestBodyCompressed: return "compressed"
        case .settingIgnored(let setting, _, _): return "ignored \(setting)"
        }
    }
}
