import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Each of the client's time limits, and that a failure names the one that ran out.
@Suite("Timeouts by phase", .generousTimeLimit)
struct TimeoutPhaseTests {
    @Test(
        "a response that stalls mid-body fails with timedOut(.idle) at the idle timeout, long before the total",
        arguments: TransportUnderTest.allCases)
    func idleTimeout(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in
            .data(Data(repeating: 7, count: 1_000)).withBehavior(
                .paced([.init(bytes: 10)], afterLast: .holdUntilHangUp))
        }
        defer { server.shutdown() }
        let clock = ManualClock()
        let client = transport.client {
            $0.clock = clock
            $0.timeout = 60
            $0.idleTimeout = 0.5
        }
        let call = client.get(server.clientEndpoint("/stalls"), as: Data.self)
        #expect(await server.awaitStatistics { $0.requestsReceived == 1 })
        let outcome = await call.outcome(at: 0.5, on: clock)
        #expect(outcome.timeoutPhase == .idle, "\(outcome)")
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer == 1 }, "the transfer was stopped")
    }

    @Test(
        "with an idle timeout, the total still bounds a request that keeps trickling",
        arguments: TransportUnderTest.allCases)
    func totalStillApplies(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in .text("late").heldUntilHangUp() }
        defer { server.shutdown() }
        let clock = ManualClock()
        let client = transport.client {
            $0.clock = clock
            $0.timeout = 0.3
            $0.idleTimeout = 10
        }
        let call = client.get(server.clientEndpoint("/slow"), as: Data.self)
        #expect(await server.awaitStatistics { $0.requestsReceived == 1 })
        let outcome = await call.outcome(at: 0.3, on: clock)
        #expect(outcome.timeoutPhase == .total, "\(outcome)")
    }

    @Test(
        "a download that stalls fails with timedOut(.idle) at the idle timeout", arguments: TransportUnderTest.allCases)
    func downloadIdle(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in
            .data(Data(repeating: 1, count: 100_000)).withBehavior(
                .paced([.init(bytes: 1_000)], afterLast: .holdUntilHangUp))
        }
        defer { server.shutdown() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualClock()
        let client = transport.client {
            $0.clock = clock
            $0.timeout = 600
            $0.idleTimeout = 2
        }
        let call = client.download(server.clientEndpoint("/big"), to: folder.appendingPathComponent("big"))
        #expect(await server.awaitStatistics { $0.requestsReceived == 1 })
        let outcome = await call.outcome(at: 2, on: clock)
        #expect(outcome.timeoutPhase == .idle, "\(outcome)")
    }

    @Test("curl: a TLS handshake that never ends fails with timedOut(.connect) at the connect timeout")
    func connectTimeoutDuringTLS() async throws {
        let listener = try SilentListener()
        let client = TransportUnderTest.curl.client {
            $0.connectTimeout = 0.25
            $0.timeout = 60
        }
        let endpoint = ClientTestEndpoint(baseURL: listener.url("https"), path: "/")
        let (outcome, elapsed) = await SettlementTimer.measure { client.get(endpoint, as: Data.self) }
        #expect(outcome.timeoutPhase == .connect, "\(outcome)")
        // Not the 60 s total: the connect limit decided (bound generous for slow machines).
        #expect(elapsed < .seconds(30), "\(elapsed)")
    }

    @Test("curl: a download's connect timeout holds during the TLS handshake too")
    func connectTimeoutOnTransfer() async throws {
        let listener = try SilentListener()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = TransportUnderTest.curl.client {
            $0.connectTimeout = 0.25
            $0.timeout = 60
        }
        let endpoint = ClientTestEndpoint(baseURL: listener.url("https"), path: "/file")
        let outcome = await client.download(endpoint, to: folder.appendingPathComponent("file")).outcome()
        #expect(outcome.timeoutPhase == .connect, "\(outcome)")
    }

    @Test("curl: once connected, a server that never answers runs out the total, not the connect timeout")
    func connectedThenSilentIsTotal() async throws {
        let listener = try SilentListener()
        let client = TransportUnderTest.curl.client {
            $0.connectTimeout = 30
            $0.timeout = 0.5
        }
        let endpoint = ClientTestEndpoint(baseURL: listener.url("http"), path: "/")
        let outcome = await client.get(endpoint, as: Data.self).outcome()
        #expect(outcome.timeoutPhase == .total, "\(outcome)")
    }

    @Test("curl: the connect timeout does not limit a slow answer from a reachable server")
    func connectTimeoutLetsSlowAnswersThrough() async throws {
        let answer = LoopbackServer.Gate()
        let server = try LoopbackServer { _ in
            .text("report").withBehavior(.paced([.init(bytes: 0, then: .until(answer))], afterLast: .sendRest))
        }
        defer { server.shutdown() }
        let client = TransportUnderTest.curl.client {
            $0.connectTimeout = 0.5
            $0.timeout = 60
        }
        let call = client.get(server.clientEndpoint("/report"), as: Data.self)
        #expect(await server.awaitStatistics { $0.requestsReceived == 1 })
        // Longer than the connect timeout: if it bounded the exchange, the call would fail.
        try await Task.sleep(for: .seconds(1))
        answer.open()
        let response = try await call.outcome().get()
        #expect(String(decoding: response, as: UTF8.self) == "report")
    }

    @Test("the phase shows in the error's description")
    func describesPhase() {
        #expect(KringleError.timedOut(.connect).description.contains("connect timeout"))
        #expect(KringleError.timedOut(.idle).description.contains("idle timeout"))
        #expect(KringleError.timedOut(.total).description.contains("longer than its timeout"))
    }
}

extension Result where Failure == any Error {
    /// The phase of a `KringleError.timedOut` failure; `nil` for anything else.
    fileprivate var timeoutPhase: TimeoutPhase? {
        guard case .failure(KringleError.timedOut(let phase)) = self else { return nil }
        return phase
    }
}
