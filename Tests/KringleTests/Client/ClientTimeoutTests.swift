import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import KringleTesting
import Synchronization
import Testing
@testable import Kringle

extension ExclusiveClientTests {
    @Suite("Request timeouts")
    struct ClientTimeoutTests {
        @Test("a sub-second timeout rejects with timedOut on time and drops the connection",
              arguments: TransportUnderTest.allCases)
        func subSecondTimeout(_ transport: TransportUnderTest) async throws {
            let server = try LoopbackServer { _ in LoopbackServer.Response.text("late").delayed(by: 5) }
            defer { server.shutdown() }
            let client = transport.client { $0.timeout = 0.3 }
            let (outcome, elapsed) = await SettlementTimer.measure { client.get(server.clientEndpoint("/slow"), as: Data.self) }
            #expect(outcome.kringleError?.caseName == "timedOut", "\(outcome)")
            #expect(elapsed >= .milliseconds(290), "\(elapsed)")
            // Well before URLSession's own (rounded) time-out could have fired.
            #expect(elapsed < .milliseconds(1_500), "\(elapsed)")
            // The task was cancelled, not left running in the background.
            #expect(await server.awaitStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
            #expect(server.statistics.responsesCompleted == 0)
        }

        @Test("the timeout applies to each redirect hop anew", arguments: TransportUnderTest.allCases)
        func timeoutPerHop(_ transport: TransportUnderTest) async throws {
            // Two hops of 1.5 s each: 3 s in all, more than the 2.5 s timeout, but each hop is within.
            let server = try LoopbackServer { request in
                request.path == "/first"
                    ? LoopbackServer.Response.redirect(to: "/second").delayed(by: 1.5)
                    : LoopbackServer.Response.text("made it").delayed(by: 1.5)
            }
            defer { server.shutdown() }
            let client = transport.client { $0.timeout = 2.5 }
            let body = try await client.get(server.clientEndpoint("/first"), as: Data.self).valueWithin()
            #expect(String(decoding: body, as: UTF8.self) == "made it")
        }

        @Test("StubTransport: a sub-second timeout rejects with timedOut on time")
        func stubTimeout() async throws {
            let transport = StubTransport()
            transport.stub(.get, "/slow", with: StubTransport.Stub(status: 200, delay: 5))
            var configuration = NetworkClient.Configuration()
            configuration.timeout = 0.2
            let client = NetworkClient(configuration: configuration, transport: transport)
            let endpoint = ClientTestEndpoint(baseURL: clientURL("http://stub.example"), path: "/slow")
            let (outcome, elapsed) = await SettlementTimer.measure { client.get(endpoint) }
            #expect(outcome.kringleError?.caseName == "timedOut", "\(outcome)")
            #expect(elapsed >= .milliseconds(190), "\(elapsed)")
            #expect(elapsed < .milliseconds(1_500), "\(elapsed)")
        }

        @Test("a transport alone honours the request's timeoutInterval with KringleError.timedOut",
              arguments: TransportUnderTest.allCases)
        func transportOwnTimeout(_ transport: TransportUnderTest) async throws {
            let server = try LoopbackServer { _ in LoopbackServer.Response.text("late").delayed(by: 20) }
            defer { server.shutdown() }
            var request = URLRequest(url: server.url("/slow"))
            request.timeoutInterval = 1
            let adapter = transport.make()
            let (outcome, elapsed) = await SettlementTimer.measure { adapter.send(request) }
            #expect(outcome.kringleError?.caseName == "timedOut", "\(outcome)")
            #expect(elapsed >= .milliseconds(990), "\(elapsed)")
            #expect(elapsed < .seconds(8), "\(elapsed)")
        }
    }
}

/// Times a promise from its creation to its settlement, noting the settlement on a queue of
/// its own, so that a busy test runner resuming the test late does not count.
enum SettlementTimer {
    private static let queue = DispatchQueue(label: "kringle.tests.settlement-timer", qos: .userInteractive)

    static func measure<Value>(
        within seconds: TimeInterval = 30,
        _ start: () -> Promise<Value>
    ) async -> (Result<Value, any Error>, Duration) {
        let clock = ContinuousClock()
        let settledAt = Mutex<ContinuousClock.Instant?>(nil)
        let began = clock.now
        let promise = start()
        let observed = promise.always(on: queue) { settledAt.withLock { $0 = clock.now } }
        let outcome = await observed.outcome(within: seconds)
        let end = settledAt.withLock { $0 } ?? clock.now
        return (outcome, end - began)
    }
}
