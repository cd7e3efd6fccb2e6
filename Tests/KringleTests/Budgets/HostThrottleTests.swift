import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The host throttle, on a clock the test moves: pauses for the whole host, a pace of the
/// user's or the host's, the first request alone, deadlines and cancellation while held.
@Suite("Host throttle", .generousTimeLimit)
struct HostThrottleTests {
    private static let other = URL(string: "https://other.example")!

    /// A client with `throttle`, no retries and no deadline unless `timeout` is given.
    private static func client(
        _ transport: StubTransport, clock: ManualClock, throttle: HostThrottle, timeout: TimeInterval = 0,
        log: InterceptorEventLog? = nil
    ) -> NetworkClient {
        budgetClient(transport, clock: clock, retries: nil, log: log) {
            $0.throttle = throttle
            $0.timeout = timeout
        }
    }

    /// How many requests the transport has seen, once `count` have arrived.
    private static func expectRequests(_ count: Int, _ transport: StubTransport) async {
        #expect(await eventually { transport.requests.count >= count })
        await allowTimeForAWrongEvent(0.02)
        #expect(transport.requests.count == count)
    }

    @Test("a 429 with Retry-After pauses every request to its host, not another host's; the pause is logged")
    func pauseHoldsTheWholeHost() async throws {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        transport.stub(.get, "/busy", with: budgetStub(429, [("Retry-After", "5")]))
        transport.stub(.get, "/thing", with: budgetStub(200))
        let log = InterceptorEventLog()
        let client = Self.client(transport, clock: clock, throttle: HostThrottle(), log: log)

        #expect(await client.get(BudgetEndpoint(path: "/busy")).outcome().rejectedStatus == 429)
        let held = client.get(BudgetEndpoint())
        let elsewhere = client.get(BudgetEndpoint(baseURL: Self.other))
        try await elsewhere.valueWithin()
        await clock.untilTimersPending(1)
        #expect(clock.pendingDelays == [5])
        await Self.expectRequests(2, transport)  // the 429 and the other host's

        clock.advance(by: 5)
        try await held.valueWithin()
        #expect(transport.requests.count == 3)
        #expect(log.events.contains { $0.description == "‖ budget.example paused for 5.00 s after a 429" })
    }

    @Test("RateLimit fields saying nothing remains pause the host until the reset, capped at maximumPause")
    func rateLimitExhausted() async throws {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        transport.stub(.get, "/last", with: budgetStub(200, [("RateLimit", #""default";r=0;t=86400"#)]))
        transport.stub(.get, "/thing", with: budgetStub(200))
        let client = Self.client(transport, clock: clock, throttle: HostThrottle(maximumPause: 30))
        try await client.get(BudgetEndpoint(path: "/last")).valueWithin()
        let held = client.get(BudgetEndpoint())
        await clock.untilTimersPending(1)
        #expect(clock.pendingDelays == [30])
        clock.advance(by: 30)
        try await held.valueWithin()
    }

    @Test("a host's first request goes alone; the others wait for its answer, then go")
    func firstRequestAlone() async throws {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        transport.stub(.get, "/thing", with: budgetStub(200, delay: 1))
        let client = Self.client(transport, clock: clock, throttle: HostThrottle())
        let calls = (0..<3).map { _ in client.get(BudgetEndpoint()) }
        await Self.expectRequests(1, transport)
        await clock.untilTimersPending(1)
        clock.advance(by: 1)  // the first answer: the two others go
        await clock.untilTimersPending(2)
        #expect(transport.requests.count == 3)
        clock.advance(by: 1)
        for call in calls { try await call.valueWithin() }
    }

    @Test("a RateLimit-Policy paces the host's requests evenly at its quota over its window")
    func learnedPace() async throws {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        transport.stub(.get, "/thing", with: budgetStub(200, [("RateLimit-Policy", #""default";q=10;w=1"#)]))
        let client = Self.client(transport, clock: clock, throttle: HostThrottle())
        try await client.get(BudgetEndpoint()).valueWithin()  // learns the policy
        let calls = (0..<3).map { _ in client.get(BudgetEndpoint()) }
        await clock.untilTimersPending(2)
        #expect(clock.pendingDelays.map { ($0 * 1000).rounded() } == [100, 200])
        #expect(transport.requests.count == 2)
        clock.advance(by: 0.2)
        for call in calls { try await call.valueWithin() }
        #expect(transport.requests.count == 4)
    }

    @Test("a rate of one's own: 2 per second, evenly; with a burst of 2, two at once")
    func ownRate() async throws {
        for burst in [1, 2] {
            let clock = ManualClock()
            let transport = StubTransport(clock: clock)
            transport.stub(.get, "/thing", with: budgetStub(200))
            let throttle = HostThrottle(rate: .init(requests: 2, per: 1, burst: burst), followsServerLimits: false)
            let client = Self.client(transport, clock: clock, throttle: throttle)
            let calls = (0..<4).map { _ in client.get(BudgetEndpoint()) }
            await clock.untilTimersPending(4 - burst)
            let expected: [TimeInterval] = burst == 1 ? [0.5, 1, 1.5] : [0.5, 1]
            #expect(clock.pendingDelays == expected, "burst \(burst)")
            await Self.expectRequests(burst, transport)
            clock.advance(by: 1.5)
            for call in calls { try await call.valueWithin() }
        }
    }

    @Test("a call whose turn would come after its deadline fails at once with throttled, nothing sent")
    func deadlineWhilePaused() async throws {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        transport.stub(.get, "/busy", with: budgetStub(503, [("Retry-After", "30")]))
        let client = Self.client(transport, clock: clock, throttle: HostThrottle(), timeout: 10)
        _ = await client.get(BudgetEndpoint(path: "/busy")).outcome()

        let outcome = await client.get(BudgetEndpoint(), timeout: 2).outcome()
        guard case .failure(KringleError.throttled(let host, let wait)) = outcome else {
            Issue.record("expected throttled, got \(outcome)")
            return
        }
        #expect(host == "budget.example")
        #expect(wait == 30)
        #expect(transport.requests.count == 1)
    }

    @Test("cancelling a call that waits for its turn rejects it with cancelled and sends nothing")
    func cancelWhileHeld() async throws {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        transport.stub(.get, "/thing", with: budgetStub(200))
        let throttle = HostThrottle(rate: .init(requests: 1, per: 10), followsServerLimits: false)
        let client = Self.client(transport, clock: clock, throttle: throttle)
        try await client.get(BudgetEndpoint()).valueWithin()
        let held = client.get(BudgetEndpoint())
        await clock.untilTimersPending(1)
        held.cancel()
        #expect(await held.outcome().isCancellation)
        #expect(clock.pendingTimers == 0)
        clock.advance(by: 10)
        #expect(transport.requests.count == 1)
    }

    @Test("a first request cancelled in flight lets the calls behind it go")
    func cancelledFirstRequest() async throws {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        transport.stub(.get, "/thing", with: budgetStub(200, delay: 1))
        let client = Self.client(transport, clock: clock, throttle: HostThrottle())
        let first = client.get(BudgetEndpoint())
        let second = client.get(BudgetEndpoint())
        await Self.expectRequests(1, transport)
        first.cancel()
        await Self.expectRequests(2, transport)
        await clock.untilTimersPending(1)
        clock.advance(by: 1)
        try await second.valueWithin()
        #expect(await first.outcome().isCancellation)
    }
}
