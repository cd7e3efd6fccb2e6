import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A POST opted into retries carries one `Idempotency-Key` per call, the same on every
/// attempt.
@Suite("Idempotency keys", .generousTimeLimit)
struct IdempotencyKeyTests {
    /// A client with `policy`, on a transport that fails each call's first two attempts with
    /// a 503, then answers 200.
    private static func flakyClient(_ policy: RetryPolicy = RetryPolicy(baseDelay: 0, maximumDelay: 0))
        -> (NetworkClient, StubTransport)
    {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        let attempts = Box(0)
        transport.stub { _ in
            let attempt = attempts.withLock { count in
                count += 1
                return count
            }
            return budgetStub(attempt % 3 == 0 ? 200 : 503)
        }
        return (budgetClient(transport, clock: clock) { $0.interceptors = [policy] }, transport)
    }

    private static func keys(_ transport: StubTransport) -> [String?] {
        transport.requests.map { $0.headers["Idempotency-Key"] }
    }

    @Test("a POST the retry policy opts in is sent with the same key on every attempt, and a new one on the next call")
    func sameKeyAcrossAttempts() async throws {
        let (client, transport) = Self.flakyClient(
            RetryPolicy(idempotencyKeyMethods: [.post], baseDelay: 0, maximumDelay: 0))
        try await client.post(["amount": 10], to: BudgetEndpoint()).valueWithin()
        try await client.post(["amount": 10], to: BudgetEndpoint()).valueWithin()

        let keys = Self.keys(transport)
        #expect(keys.count == 6)
        let first = try #require(keys[0])
        let second = try #require(keys[3])
        #expect(Array(keys[0..<3]) == [first, first, first])
        #expect(Array(keys[3..<6]) == [second, second, second])
        #expect(first != second)
        // draft-ietf-httpapi-idempotency-key-header §2: a Structured Fields string.
        #expect(first.hasPrefix("\"") && first.hasSuffix("\"") && first.count == 38, "\(first)")
    }

    @Test("an endpoint that sends a key is retried by the default policy, its key unchanged")
    func endpointOptsIn() async throws {
        let (client, transport) = Self.flakyClient()
        try await client.post(["amount": 10], to: BudgetEndpoint(sendsIdempotencyKey: true)).valueWithin()
        let keys = Self.keys(transport)
        #expect(keys.count == 3)
        #expect(Set(keys).count == 1 && keys[0] != nil)
    }

    @Test("a key the endpoint sets itself is kept")
    func ownKeyKept() async throws {
        let (client, transport) = Self.flakyClient()
        let endpoint = BudgetEndpoint(headers: ["idempotency-key": "order-42"], sendsIdempotencyKey: true)
        try await client.post(["amount": 10], to: endpoint).valueWithin()
        #expect(Self.keys(transport) == ["order-42", "order-42", "order-42"])
    }

    @Test("without a key a POST is neither given one nor retried")
    func noKeyNoRetry() async throws {
        let (client, transport) = Self.flakyClient()
        let outcome = await client.post(["amount": 10], to: BudgetEndpoint()).outcome()
        #expect(outcome.rejectedStatus == 503)
        #expect(Self.keys(transport) == [nil])
    }

    @Test("a GET gets no key when only POST is opted in")
    func onlyTheMethodsOptedIn() async throws {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        transport.stub { _ in budgetStub(200) }
        let client = budgetClient(transport, clock: clock) {
            $0.interceptors = [RetryPolicy(idempotencyKeyMethods: [.post])]
        }
        try await client.get(BudgetEndpoint()).valueWithin()
        #expect(Self.keys(transport) == [nil])
    }
}
