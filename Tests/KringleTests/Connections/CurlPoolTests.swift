import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// The connection pool's settings, counted where connections are made: at the server.
@Suite("CurlTransport connection pool", .generousTimeLimit)
struct CurlPoolTests {
    /// A server whose answers to `/<name>` wait until `gates[name]` opens.
    private static func heldServer(_ gates: [String: LoopbackServer.Gate]) throws -> LoopbackServer {
        try LoopbackServer { request in
            guard let gate = gates[String(request.path.dropFirst())] else { return .text("ok") }
            return .text("ok").withBehavior(.paced([.init(bytes: 0, then: .until(gate))], afterLast: .sendRest))
        }
    }

    @Test("maximumConnectionsPerHost: eight requests at once share two connections, all answered")
    func connectionsPerHost() async throws {
        let gate = LoopbackServer.Gate()
        let server = try Self.heldServer(["held": gate])
        defer { server.shutdown() }
        let client = curlClient { $0.maximumConnectionsPerHost = 2 }
        let calls = (0..<8).map { _ in client.get(server.clientEndpoint("/held"), as: Data.self) }
        #expect(await server.awaitStatistics { $0.requestsReceived == 2 })
        gate.open()
        for call in calls { _ = try await call.valueWithin() }
        #expect(server.statistics.requestsReceived == 8)
        #expect(server.statistics.connectionsAccepted == 2, "\(server.statistics)")
    }

    @Test(
        "maximumIdleConnections: after a burst of three, the pool keeps that many for the next burst",
        arguments: [(kept: Optional(1), connections: 5), (kept: nil, connections: 3)])
    func idleConnectionsKept(kept: Int?, connections: Int) async throws {
        let first = LoopbackServer.Gate()
        let second = LoopbackServer.Gate()
        let server = try Self.heldServer(["first": first, "second": second])
        defer { server.shutdown() }
        let client = curlClient { $0.maximumIdleConnections = kept }

        let burst = (0..<3).map { _ in client.get(server.clientEndpoint("/first"), as: Data.self) }
        #expect(await server.awaitStatistics { $0.requestsReceived == 3 })
        first.open()
        for call in burst { _ = try await call.valueWithin() }

        let next = (0..<3).map { _ in client.get(server.clientEndpoint("/second"), as: Data.self) }
        #expect(await server.awaitStatistics { $0.requestsReceived == 6 })
        second.open()
        for call in next { _ = try await call.valueWithin() }
        // With one kept, the next burst reuses it and opens two; with the default, reuses all three.
        #expect(server.statistics.connectionsAccepted == connections, "\(server.statistics)")
    }

    @Test("maximumIdleConnections = 0 keeps none: three requests one after another open three connections")
    func zeroIdleConnectionsKeepsNone() async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        let client = curlClient { $0.maximumIdleConnections = 0 }
        for _ in 0..<3 {
            _ = try await client.get(server.clientEndpoint("/"), as: Data.self).valueWithin()
        }
        #expect(server.statistics.requestsReceived == 3)
        #expect(server.statistics.connectionsAccepted == 3, "\(server.statistics)")
    }

    // Real time, as libcurl keeps it: the pause only has to be longer than the setting,
    // and a slower machine makes it longer still.
    @Test("idleConnectionTimeout: a connection idle for longer is not reused")
    func idleConnectionTimeout() async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        let client = curlClient { $0.idleConnectionTimeout = 1 }
        _ = try await client.get(server.clientEndpoint("/"), as: Data.self).valueWithin()
        try await Task.sleep(for: .milliseconds(2_100))
        _ = try await client.get(server.clientEndpoint("/"), as: Data.self).valueWithin()
        #expect(server.statistics.connectionsAccepted == 2, "\(server.statistics)")
    }

    @Test("maximumConnectionLifetime: a connection older than it takes no new request")
    func connectionLifetime() async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        let client = curlClient { $0.maximumConnectionLifetime = 1 }
        _ = try await client.get(server.clientEndpoint("/"), as: Data.self).valueWithin()
        try await Task.sleep(for: .milliseconds(2_100))
        _ = try await client.get(server.clientEndpoint("/"), as: Data.self).valueWithin()
        #expect(server.statistics.connectionsAccepted == 2, "\(server.statistics)")
    }

    @Test("by default, back-to-back requests reuse one connection")
    func reusesByDefault() async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        let client = curlClient { _ in }
        for _ in 0..<3 { _ = try await client.get(server.clientEndpoint("/"), as: Data.self).valueWithin() }
        #expect(server.statistics.connectionsAccepted == 1, "\(server.statistics)")
    }
}
