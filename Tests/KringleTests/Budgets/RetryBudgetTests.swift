import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The retry budget caps retries across calls, per host, over a sliding window.
@Suite("Retry budget", .generousTimeLimit)
struct RetryBudgetTests {
    /// 1,000 calls, each allowed 3 retries, against a host that always fails.
    private static func outage(budget: RetryBudget?, log: InterceptorEventLog? = nil) async throws -> Int {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        transport.stub { _ in budgetStub(503) }
        let client = budgetClient(transport, clock: clock, retries: 3, log: log) {
            $0.interceptors = [RetryPolicy(baseDelay: 0, maximumDelay: 0)]
            $0.retryBudget = budget
        }
        let calls = (0..<1_000).map { _ in client.get(BudgetEndpoint()) }
        let outcomes = try await Promise.allSettled(calls).outcome().get()
        #expect(outcomes.allSatisfy { $0.rejectedStatus == 503 })
        return transport.requests.count
    }

    @Test("1,000 failing calls with 3 retries each send at most 1.2 × 1,000 + 10 requests with the default budget")
    func defaultBudgetCapsTheLoad() async throws {
        let log = InterceptorEventLog()
        let sent = try await Self.outage(budget: RetryBudget(), log: log)
        #expect(sent <= 1_210, "\(sent) requests")
        #expect(sent >= 1_200, "the budget's retries are still made: \(sent) requests")
        // A call whose retry is denied logs it once and stops; at most a third of the
        // retries made went to calls that made all three.
        #expect((1_000 - (sent - 1_000) / 3...1_000).contains(log.denials.count), "\(log.denials.count) denials")
        #expect(log.denials.allSatisfy { $0 == .budget(host: "budget.example") })
        #expect(
            log.events.contains { $0.description.contains("not retried: the retry budget for budget.example is spent") }
        )
    }

    @Test("without a budget every call makes its 3 retries: 4,000 requests")
    func noBudget() async throws {
        #expect(try await Self.outage(budget: nil) == 4_000)
    }

    @Test("a lone script's retries still happen: the floor allows 10 per window whatever the first attempts")
    func floorForALoneCaller() {
        let budget = RetryBudget()
        budget.recordFirstAttempt(to: "a", now: 0)
        let allowed = (0..<20).filter { _ in budget.withdrawRetry(to: "a", now: 0) }.count
        #expect(allowed == 10)
    }

    @Test("the window slides: retries spent ten seconds ago are allowed again")
    func windowSlides() {
        let budget = RetryBudget(ratio: 0, minimumRetries: 2, window: 10)
        #expect(budget.withdrawRetry(to: "a", now: 0))
        #expect(budget.withdrawRetry(to: "a", now: 0))
        #expect(!budget.withdrawRetry(to: "a", now: 9_000_000_000))
        #expect(budget.withdrawRetry(to: "a", now: 10_000_000_000))
    }

    @Test("hosts have budgets of their own: one in an outage leaves another its retries")
    func perHost() {
        let budget = RetryBudget(ratio: 0, minimumRetries: 1)
        #expect(budget.withdrawRetry(to: "down.example", now: 0))
        #expect(!budget.withdrawRetry(to: "down.example", now: 0))
        #expect(budget.withdrawRetry(to: "up.example", now: 0))
    }

    @Test("the ratio counts first attempts: 20% of 100 calls is 20 retries, plus the floor")
    func ratioOfFirstAttempts() {
        let budget = RetryBudget(ratio: 0.2, minimumRetries: 5)
        for _ in 0..<100 { budget.recordFirstAttempt(to: "a", now: 0) }
        let allowed = (0..<100).filter { _ in budget.withdrawRetry(to: "a", now: 0) }.count
        #expect(allowed == 25)
    }

    @Test("a retry that sends credentials a 401 asked for is never denied")
    func authenticationRetriesAreNotCapped() {
        let response = Response(
            value: Data(), statusCode: 401, headers: HTTPHeaders(), body: Data(), url: budgetStubBase)
        #expect(!RetryBudget.counts(KringleError.unacceptableStatusCode(401, response)))
        #expect(RetryBudget.counts(KringleError.unacceptableStatusCode(503, response)))
        #expect(RetryBudget.counts(BudgetReset.error))
    }
}
