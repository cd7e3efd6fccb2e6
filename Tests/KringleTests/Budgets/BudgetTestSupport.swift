import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Helpers for the deadline, retry budget, throttling and idempotency key tests. Every name
// starts with `Budget` so that nothing clashes with the other folders of `KringleTests`.

/// The stub transport's base URL.
let budgetStubBase = URL(string: "https://budget.example")!

/// An endpoint with its own timeout and idempotency key setting.
struct BudgetEndpoint: Endpoint {
    var baseURL = budgetStubBase
    var path = "/thing"
    var headers: [String: String] = [:]
    var timeout: TimeInterval?
    var sendsIdempotencyKey = false
}

/// A transport error whose request never completed (a reset), which ``RetryPolicy`` retries.
struct BudgetReset: TransportFailure, Equatable {
    var requestNeverCompleted: Bool { true }

    /// As a transport reports it.
    static var error: KringleError { .transport(BudgetReset()) }
}

/// A stub answer with `status` and the given header fields.
func budgetStub(_ status: Int, _ fields: [(String, String)] = [], delay: TimeInterval = 0) -> StubTransport.Stub {
    var headers = HTTPHeaders()
    for (name, value) in fields { headers.add(name: name, value: value) }
    return StubTransport.Stub(status: status, headers: headers, delay: delay)
}

/// A client on `transport` and `clock`, with `RetryPolicy` and at most `maxRetryCount`
/// retries, logging to `log`; `configure` changes the rest.
func budgetClient(
    _ transport: any Transport, clock: any KringleClock, retries maxRetryCount: Int? = 5,
    log: InterceptorEventLog? = nil, configure: (inout NetworkClient.Configuration) -> Void = { _ in }
) -> NetworkClient {
    var configuration = NetworkClient.Configuration()
    configuration.clock = clock
    configuration.interceptors = maxRetryCount == nil ? [] : [RetryPolicy()]
    configuration.maxRetryCount = maxRetryCount
    configuration.logger = log
    configure(&configuration)
    return NetworkClient(configuration: configuration, transport: transport)
}

extension InterceptorEventLog {
    /// Why each retry an interceptor asked for was not started.
    var denials: [RetryDenial] {
        events.compactMap { event in
            if case .retryDenied(_, _, _, _, let denial) = event { return denial }
            return nil
        }
    }
}

extension ManualClock {
    /// Seconds since the clock was made.
    var elapsed: TimeInterval { Double(uptimeNanoseconds) / 1e9 }

    /// Moves the clock through `call`'s retries until it settles: each time the call has
    /// scheduled a wait of `delay` seconds (the retry's, as the log reports it), the clock
    /// moves by exactly that. Waits for the code under test in real time, which only bounds
    /// a test that has gone wrong.
    func runRetries<Value>(of call: Promise<Value>, log: InterceptorEventLog) async -> Result<Value, any Error> {
        var handled = 0
        let settled = Box(false)
        call.always { settled.withLock { $0 = true } }
        while true {
            let moved = await eventually(within: 30) {
                settled.value
                    || log.retries.count > handled
                        && pendingDelays.contains { abs($0 - log.retries[handled].delay) < 1e-6 }
            }
            guard moved, !settled.value else { break }
            advance(by: log.retries[handled].delay)
            handled += 1
        }
        return await call.outcome(within: 30)
    }
}

/// Expects `call` to reject with ``KringleError/timedOut(_:)`` for the call's deadline.
func budgetExpectTimedOut<Value>(
    _ call: Promise<Value>, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let outcome = await call.outcome()
    guard case .failure(KringleError.timedOut(.total)) = outcome else {
        Issue.record("expected the call's deadline to pass, got \(outcome)", sourceLocation: sourceLocation)
        return
    }
}
