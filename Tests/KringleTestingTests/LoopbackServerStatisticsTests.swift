import Foundation
import KringleTestSupport
import KringleTesting
import Testing

@Suite("Statistics counters", .generousTimeLimit, .onOwnThread)
struct LoopbackServerStatisticsTests {
    @Test func countsConnectionsRequestsAndResponses() throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        #expect(server.statistics == .init())

        let first = try RawClient(port: server.port)
        try first.send("GET /1 HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try first.readResponse()
        try first.send("GET /2 HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try first.readResponse()
        let second = try RawClient(port: server.port)
        try second.send("GET /3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        _ = try second.readResponse()

        #expect(server.waitForStatistics { $0.responsesCompleted == 3 })
        #expect(server.statistics == .init(connectionsAccepted: 2, requestsReceived: 3, responsesCompleted: 3))
    }

    @Test func idleCloseIsNotCountedAsGivingUp() throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readResponse()
        client.close()
        // A second connection proves the server went on; then check nothing was miscounted.
        let probe = try RawClient(port: server.port)
        try probe.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try probe.readResponse()
        #expect(server.waitForStatistics { $0.responsesCompleted == 2 })
        #expect(server.statistics.connectionsClosedByPeer == 0)
    }

    @Test func clientVanishingMidRequestIsCounted() throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly a bit")
        client.close()
        #expect(server.waitForStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
        #expect(server.statistics.requestsReceived == 0)
    }

    @Test func waitForStatisticsTimesOut() throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        #expect(!server.waitForStatistics(timeout: 0.05) { $0.requestsReceived == 1 })
    }
}
