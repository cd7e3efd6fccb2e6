import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Identical requests in flight at once share one exchange, on a client that coalesces; each
/// caller keeps its value, its deadline and its cancellation.
@Suite("Coalescing", .generousTimeLimit)
struct CoalescingTests {
    /// A server whose answers wait, head sent, until the test opens `gate`.
    private static func gatedServer(_ gate: LoopbackServer.Gate) throws -> (LoopbackServer, Counter) {
        let requests = Counter()
        let server = try LoopbackServer { _ in
            requests.increment()
            return LoopbackServer.Response.json(#"{"name": "Tom", "mood": "purring"}"#)
                .withBehavior(.paced([.init(bytes: 0, then: .until(gate))], afterLast: .sendRest))
        }
        return (server, requests)
    }

    private static func coalescing(_ subject: TransportUnderTest) -> NetworkClient {
        subject.client { $0.coalescesRequests = true }
    }

    /// 50 GETs of one URL on a coalescing client, sharing one exchange the gated server
    /// holds.
    private struct FanOut {
        let gate = LoopbackServer.Gate()
        let server: LoopbackServer
        let requests: Counter
        let client: NetworkClient
        let calls: [Promise<ClientCat>]

        init(_ subject: TransportUnderTest = .curl) async throws {
            (server, requests) = try CoalescingTests.gatedServer(gate)
            let client = CoalescingTests.coalescing(subject)
            let endpoint = server.clientEndpoint("/cat")
            calls = (0..<50).map { _ in client.get(endpoint, as: ClientCat.self) }
            self.client = client
            let requests = requests
            #expect(await eventually { client.coalescer?.waitingCallers == 50 && requests.value == 1 })
        }
    }

    @Test(
        "50 concurrent GETs of one URL reach a gated server once, and each gets the value",
        arguments: TransportUnderTest.allCases)
    func fiftyShareOne(_ subject: TransportUnderTest) async throws {
        let fanOut = try await FanOut(subject)
        defer { fanOut.server.shutdown() }
        fanOut.gate.open()
        for call in fanOut.calls {
            #expect(try await call.valueWithin() == ClientCat(name: "Tom", mood: "purring"))
        }
        #expect(fanOut.requests.value == 1)
    }

    @Test("cancelling 49 of 50 still gives the 50th its value; the exchange goes on")
    func cancellingAllButOne() async throws {
        let fanOut = try await FanOut()
        defer { fanOut.server.shutdown() }
        for call in fanOut.calls.dropLast() { call.cancel() }
        for call in fanOut.calls.dropLast() { #expect(await call.outcome().isCancellation) }
        #expect(fanOut.client.coalescer?.waitingCallers == 1)
        fanOut.gate.open()
        #expect(try await fanOut.calls[49].valueWithin() == ClientCat(name: "Tom", mood: "purring"))
        #expect(fanOut.requests.value == 1)
        #expect(fanOut.server.statistics.connectionsClosedByPeer == 0)
    }

    @Test("cancelling all 50 cancels the exchange: the server sees the connection close")
    func cancellingAll() async throws {
        let fanOut = try await FanOut()
        defer { fanOut.server.shutdown() }
        for call in fanOut.calls { call.cancel() }
        #expect(await fanOut.server.awaitStatistics { $0.connectionsClosedByPeer >= 1 })
        #expect(fanOut.requests.value == 1)
        #expect(fanOut.client.coalescer?.waitingCallers == 0)
    }

    @Test("different Authorization values, an endpoint that opts out and POSTs are never coalesced")
    func neverShared() async throws {
        let gate = LoopbackServer.Gate()
        let (server, requests) = try Self.gatedServer(gate)
        defer { server.shutdown() }
        let client = Self.coalescing(.curl)
        let alice = client.get(server.clientEndpoint("/cat", headers: ["Authorization": "Bearer alice"]))
        let bob = client.get(server.clientEndpoint("/cat", headers: ["Authorization": "Bearer bob"]))
        var fresh = server.clientEndpoint("/cat")
        fresh.coalesces = false
        let first = client.get(fresh)
        let second = client.get(fresh)
        let posts = (0..<2).map { _ in client.post(["n": 1], to: server.clientEndpoint("/cat")) }
        #expect(await eventually { requests.value == 6 })
        gate.open()
        for call in [alice, bob, first, second] + posts { try await call.valueWithin() }
        #expect(requests.value == 6)
    }

    @Test("each caller keeps its own deadline: one times out, the other gets the answer of the one exchange")
    func ownDeadlines() async throws {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        transport.stub(.get, "/thing", with: budgetStub(200, delay: 5))
        let client = budgetClient(transport, clock: clock, retries: nil) { $0.coalescesRequests = true }
        let hasty = client.get(BudgetEndpoint(), timeout: 1)
        let patient = client.get(BudgetEndpoint(), timeout: 10)
        await clock.untilTimersPending(3)  // the stub's answer and the two deadlines
        clock.advance(by: 1)
        try await budgetExpectTimedOut(hasty)
        #expect(patient.isPending)
        clock.advance(by: 4)
        try await patient.valueWithin()
        #expect(transport.requests.count == 1)
    }

    @Test("a client that does not coalesce sends every request")
    func offByDefault() async throws {
        let gate = LoopbackServer.Gate()
        let (server, requests) = try Self.gatedServer(gate)
        defer { server.shutdown() }
        let client = TransportUnderTest.curl.client()
        let calls = (0..<3).map { _ in client.get(server.clientEndpoint("/cat")) }
        #expect(await eventually { requests.value == 3 })
        gate.open()
        for call in calls { try await call.valueWithin() }
        #expect(client.coalescer == nil)
    }
}
