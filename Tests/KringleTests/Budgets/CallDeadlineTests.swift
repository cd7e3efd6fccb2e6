import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One deadline per call, on a clock the test moves: the call's own timeout wins over its
/// endpoint's, which wins over the client's, and the deadline holds across retries and the
/// waits between them.
@Suite("Call deadlines", .generousTimeLimit)
struct CallDeadlineTests {
    enum Scope: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case client, endpoint, call
        var testDescription: String { rawValue }
    }

    @Test("the call's timeout beats the endpoint's, which beats the client's", arguments: Scope.allCases)
    func narrowestScopeWins(_ scope: Scope) async throws {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        transport.stub(.get, "/thing", with: budgetStub(200, delay: 100))
        let client = budgetClient(transport, clock: clock, retries: nil) { $0.timeout = 30 }
        let endpoint = BudgetEndpoint(timeout: scope == .client ? nil : 20)
        let call = client.get(endpoint, timeout: scope == .call ? 5 : nil)
        let expected: TimeInterval = [.client: 30, .endpoint: 20, .call: 5][scope]!

        await clock.untilTimersPending(2)  // the stub's answer and the deadline
        #expect(clock.pendingDelays == [expected, 100])
        clock.advance(by: expected)
        try await budgetExpectTimedOut(call)
    }

    @Test("a longer timeout on the call than on the client is kept: the call says how long it may take")
    func callMayTakeLongerThanTheClient() async throws {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        transport.stub(.get, "/thing", with: budgetStub(200, delay: 50))
        let client = budgetClient(transport, clock: clock, retries: nil) { $0.timeout = 10 }
        let call = client.get(BudgetEndpoint(), timeout: 60)
        await clock.untilTimersPending(2)
        clock.advance(by: 50)
        try await call.valueWithin()
        #expect(clock.elapsed == 50)
    }

    @Test("a 503 with Retry-After: 10 is not waited for past a 2 s deadline: the call fails at once with it")
    func retryAfterPastTheDeadline() async throws {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        transport.stub(.get, "/thing", with: budgetStub(503, [("Retry-After", "10")]))
        let log = InterceptorEventLog()
        let client = budgetClient(transport, clock: clock, log: log) { $0.timeout = 2 }

        let outcome = await client.get(BudgetEndpoint()).outcome()
        guard case .failure(KringleError.unacceptableStatusCode(503, _)) = outcome else {
            Issue.record("expected the 503, got \(outcome)")
            return
        }
        #expect(transport.requests.count == 1)
        #expect(clock.elapsed == 0)
        #expect(log.denials == [.deadline(delay: 10, timeLeft: 2)])
        #expect(log.events.contains { $0.description.contains("not retried: a retry in 10.00 s would pass") })
    }

    @Test("a server that answers too slowly: the call times out at its deadline, the retries in it included")
    func slowAnswers() async throws {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        transport.stub(.get, "/thing", with: budgetStub(200, delay: 5))
        let client = budgetClient(transport, clock: clock) { $0.timeout = 2 }
        let call = client.get(BudgetEndpoint())
        await clock.untilTimersPending(3)  // the call's deadline, the hop's, the stub's answer
        clock.advance(by: 2)
        try await budgetExpectTimedOut(call)
        // The time-out is retried by the policy, but no time is left for it.
        #expect(transport.requests.count == 1)
    }

    @Test("connections reset again and again: backoff retries until the next would pass the deadline")
    func resetsUntilTheDeadline() async throws {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        transport.stub(.get, "/thing", with: .failure(BudgetReset.error))
        let log = InterceptorEventLog()
        let client = budgetClient(transport, clock: clock, retries: 50, log: log) { $0.timeout = 2 }

        let outcome = await clock.runRetries(of: client.get(BudgetEndpoint()), log: log)
        guard case .failure(KringleError.transport(let failure)) = outcome else {
            Issue.record("expected the reset, got \(outcome)")
            return
        }
        #expect(failure is BudgetReset)
        #expect(clock.elapsed < 2)
        #expect(transport.requests.count == log.retries.count + 1)
        #expect(log.retries.count >= 2)
        guard case .deadline(let delay, let timeLeft)? = log.denials.last else {
            Issue.record("expected a retry denied by the deadline, got \(log.denials)")
            return
        }
        #expect(delay >= timeLeft)
    }

    @Test("an interceptor's own promise that never settles is still bounded by the call's deadline")
    func hangingInterceptor() async throws {
        // Its promise is kept, as whatever would settle it keeps it: a pending promise nobody
        // holds is dropped, and its chain with it (KringlePromise frees dropped chains).
        struct Hanging: RequestInterceptor {
            let adapted = Promise<HTTPRequest>.pending()
            func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest> { adapted }
        }
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        let client = budgetClient(transport, clock: clock, retries: 3) {
            $0.timeout = 2
            $0.interceptors = [Hanging()]
        }
        let call = client.get(BudgetEndpoint())
        await clock.untilTimersPending(1)
        clock.advance(by: 2)
        try await budgetExpectTimedOut(call)
        #expect(transport.requests.isEmpty)
    }
}
