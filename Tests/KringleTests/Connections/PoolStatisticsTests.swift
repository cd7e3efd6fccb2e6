import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore
@testable import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What each transport tells of its connection pool, during a fan-out to a gated server.
@Suite("Pool statistics", .generousTimeLimit)
struct PoolStatisticsTests {
    /// A server whose answers wait, head sent, until `gate` opens.
    private static func gatedServer(_ gate: LoopbackServer.Gate) throws -> LoopbackServer {
        try LoopbackServer { _ in
            LoopbackServer.Response.json("{}").withBehavior(
                .paced([.init(bytes: 0, then: .until(gate))], afterLast: .sendRest))
        }
    }

    @Test("CurlTransport: a fan-out of 200 to one host with a limit of 6 shows 6 in use and 194 queued")
    func curlFanOut() async throws {
        let gate = LoopbackServer.Gate()
        let server = try Self.gatedServer(gate)
        defer { server.shutdown() }
        let client = curlClient { $0.maximumConnectionsPerHost = 6 }
        let calls = (0..<200).map { index in client.get(server.clientEndpoint("/item/\(index)")) }
        let expected = HostPoolStatistics(host: "http://127.0.0.1:\(server.port)", inUse: 6, queued: 194)
        var seen: [HostPoolStatistics] = []
        #expect(
            await eventually {
                seen = (try? client.poolStatistics().wait()) ?? []
                return seen == [expected]
            }, "\(seen)")
        #expect(seen.first?.openConnections == nil && seen.first?.idleConnections == nil)
        gate.open()
        for call in calls { try await call.valueWithin() }
        #expect(try await client.poolStatistics().valueWithin().isEmpty)
    }

    @Test("URLSessionTransport: the tasks running per host, without a queue it does not show")
    func urlSessionFanOut() async throws {
        let gate = LoopbackServer.Gate()
        let server = try Self.gatedServer(gate)
        defer { server.shutdown() }
        let client = TransportUnderTest.urlSession.client()
        let calls = (0..<10).map { index in client.get(server.clientEndpoint("/item/\(index)")) }
        var seen: [HostPoolStatistics] = []
        #expect(
            await eventually {
                seen = (try? client.poolStatistics().wait()) ?? []
                return seen == [HostPoolStatistics(host: "127.0.0.1:\(server.port)", inUse: 10, queued: nil)]
            }, "\(seen)")
        gate.open()
        for call in calls { try await call.valueWithin() }
    }

    @Test("a transport that cannot tell gives no statistics")
    func stubTransport() async throws {
        let client = NetworkClient(transport: StubTransport())
        #expect(try await client.poolStatistics().valueWithin().isEmpty)
    }
}
