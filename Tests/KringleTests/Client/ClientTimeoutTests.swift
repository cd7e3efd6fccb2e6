import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Request timeouts", .generousTimeLimit)
struct ClientTimeoutTests {
    @Test(
        "a sub-second timeout rejects with timedOut on time and drops the connection",
        arguments: TransportUnderTest.allCases)
    func subSecondTimeout(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in LoopbackServer.Response.text("late").heldUntilHangUp() }
        defer { server.shutdown() }
        let clock = ManualClock()
        let client = transport.client(timeout: 0.3, clock: clock)
        let call = client.get(server.clientEndpoint("/slow"), as: Data.self)
        #expect(await server.awaitStatistics { $0.requestsReceived == 1 })
        let outcome = await call.outcome(at: 0.3, on: clock)
        #expect(outcome.kringleError?.caseName == "timedOut", "\(outcome)")
        // The task was cancelled, not left running in the background.
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
        #expect(server.statistics.responsesCompleted == 0)
    }

    @Test("the timeout runs across every redirect hop", arguments: TransportUnderTest.allCases)
    func timeoutAcrossHops(_ transport: TransportUnderTest) async throws {
        // Two hops of 1.5 s each: each is within the 2.5 s timeout, the two are not.
        let firstAnswer = LoopbackServer.Gate()
        let server = try LoopbackServer { request in
            request.path == "/first"
                ? LoopbackServer.Response(
                    status: 302, headers: [("Location", "/second")], body: Data("x".utf8),
                    behavior: .paced([.init(bytes: 0, then: .until(firstAnswer))], afterLast: .sendRest))
                : LoopbackServer.Response.text("too late").heldUntilHangUp()
        }
        defer { server.shutdown() }
        let clock = ManualClock()
        let client = transport.client(timeout: 2.5, clock: clock)
        let call = client.get(server.clientEndpoint("/first"), as: Data.self)
        #expect(await server.awaitStatistics { $0.requestsReceived == 1 })
        clock.advance(by: 1.5)
        firstAnswer.open()
        // The second hop has what is left: 1 s.
        #expect(await server.awaitStatistics { $0.requestsReceived == 2 })
        #expect(await eventually { clock.pendingDelays == [1] }, "\(clock.pendingDelays)")
        let outcome = await call.outcome(at: 1, on: clock)
        #expect(outcome.kringleError?.caseName == "timedOut", "\(outcome)")
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer >= 1 }, "\(server.statistics)")
    }

    @Test("a retry gets what is left of the call's timeout, not a new one")
    func retryHasWhatIsLeft() async throws {
        let clock = ManualClock()
        let (client, transport, endpoint) = Self.slowStub(timeout: 2, clock: clock) { configuration in
            configuration.interceptors = [RetryPolicy(baseDelay: 0, maximumDelay: 0)]
            configuration.maxRetryCount = 1
        }
        transport.stub(.get, "/slow", with: .failure(KringleError.timedOut(.connect), delay: 0.5))
        let call = client.get(endpoint)
        // The call's deadline, the first attempt's, and the stub's failure.
        await clock.untilTimersPending(3)
        #expect(clock.pendingDelays == [0.5, 2, 2])
        transport.stub(.get, "/slow", with: StubTransport.Stub(status: 200, delay: 5))
        clock.advance(by: 0.5)
        // The retry, at once (a backoff of 0 s), bounded by the 1.5 s left.
        await clock.untilTimersPending(3)
        #expect(clock.pendingDelays == [1.5, 1.5, 5], "\(clock.pendingDelays)")
        let outcome = await call.outcome(at: 1.5, on: clock)
        #expect(outcome.kringleError?.caseName == "timedOut", "\(outcome)")
        #expect(transport.requests.count == 2)
    }

    @Test("StubTransport: a sub-second timeout rejects with timedOut on time, cancelling the stub's delay")
    func stubTimeout() async throws {
        let clock = ManualClock()
        let (client, _, endpoint) = Self.slowStub(timeout: 0.2, clock: clock)
        let call = client.get(endpoint)
        await clock.untilTimersPending(2)
        #expect(clock.pendingDelays == [0.2, 5])
        let outcome = await call.outcome(at: 0.2, on: clock)
        #expect(outcome.kringleError?.caseName == "timedOut", "\(outcome)")
        #expect(clock.pendingTimers == 0, "the stub's delay was cancelled with the request")
    }

    @Test(
        "a transport alone honours the request's timeoutInterval with KringleError.timedOut",
        arguments: TransportUnderTest.allCases)
    func transportOwnTimeout(_ transport: TransportUnderTest) async throws {
        // Real time: this is the transport's own timer (URLSession's or libcurl's), which no
        // clock of Kringle's drives. The bounds only say "not early, not wildly late".
        let server = try LoopbackServer { _ in LoopbackServer.Response.text("late").heldUntilHangUp() }
        defer { server.shutdown() }
        var request = HTTPRequest(url: server.url("/slow"))
        request.timeout = 1
        let adapter = transport.make()
        let (outcome, elapsed) = await SettlementTimer.measure { adapter.send(request) }
        #expect(outcome.kringleError?.caseName == "timedOut", "\(outcome)")
        #expect(elapsed >= .milliseconds(990), "\(elapsed)")
        #expect(elapsed < .seconds(8), "\(elapsed)")
    }

    /// A client with `timeout` on `clock`, over a stub whose `/slow` answers
    /// after 5 s of that clock, and the endpoint of `/slow`.
    private static func slowStub(
        timeout: TimeInterval, clock: ManualClock,
        _ adjust: (inout NetworkClient.Configuration) -> Void = { _ in }
    ) -> (NetworkClient, StubTransport, ClientTestEndpoint) {
        let transport = StubTransport(clock: clock)
        transport.stub(.get, "/slow", with: StubTransport.Stub(status: 200, delay: 5))
        var configuration = NetworkClient.Configuration()
        configuration.timeout = timeout
        configuration.clock = clock
        adjust(&configuration)
        let client = NetworkClient(configuration: configuration, transport: transport)
        return (client, transport, ClientTestEndpoint(baseURL: clientURL("http://stub.example"), path: "/slow"))
    }
}
