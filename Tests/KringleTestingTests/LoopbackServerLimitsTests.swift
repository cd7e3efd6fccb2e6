import Foundation
import KringleTestSupport
import KringleTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Limits: request body size (413) and connections (503)", .generousTimeLimit)
struct LoopbackServerLimitsTests {
    /// A server with the given limits that answers with the body length and counts handler calls.
    private static func server(
        maximumRequestBodySize: Int? = 256 << 20, maximumConnections: Int? = 128, calls: Box<Int> = Box(0)
    ) throws -> LoopbackServer {
        let configuration = LoopbackServer.Configuration(
            maximumRequestBodySize: maximumRequestBodySize, maximumConnections: maximumConnections)
        return try LoopbackServer(configuration: configuration) { request in
            calls.withLock { $0 += 1 }
            return .text("\(request.body.count)")
        }
    }

    @Test func defaultsAreDocumented() throws {
        let configuration = LoopbackServer.Configuration()
        #expect(configuration.maximumRequestBodySize == 256 << 20)
        #expect(configuration.maximumConnections == 128)
        let server = try LoopbackServer { _ in .status(204) }
        defer { server.shutdown() }
        #expect(server.configuration == configuration)
        // Out-of-range limits are clamped rather than trapping.
        let clamped = LoopbackServer.Configuration(maximumRequestBodySize: -5, maximumConnections: 0)
        #expect(clamped == LoopbackServer.Configuration(maximumRequestBodySize: 0, maximumConnections: 1))
    }

    // A default server used to reserve up to 256 MiB for this head and then wait for the body.
    @Test(.onOwnThread) func aDefaultServerRefusesAClaimedTerabyteAtOnce() throws {
        let calls = Box(0)
        let server = try Self.server(calls: calls)
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1099511627776\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 413)
        #expect(response.text.contains("268435456"), "\(response.text)")
        #expect(response.header("Connection") == "close")
        #expect(client.serverClosedConnection())
        #expect(calls.value == 0)
        #expect(server.statistics.requestsRejected == 1)
        #expect(server.statistics.requestsReceived == 0)
    }

    @Test(.onOwnThread) func aBodyOfExactlyTheLimitIsServedAndOneByteMoreIsNot() throws {
        let server = try Self.server(maximumRequestBodySize: 10)
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789")
        #expect(try client.readResponse().text == "10")
        try client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n0123456789A")
        #expect(try client.readResponse().status == 413)
        #expect(client.serverClosedConnection())
    }

    // RFC 9110 §10.1.1: a server MAY answer with a final status instead of 100 Continue; a
    // waiting client then never sends the body.
    @Test(.onOwnThread) func anOversizedBodyIsRefusedBeforeOneHundredContinue() throws {
        let server = try Self.server(maximumRequestBodySize: 1_000)
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\nExpect: 100-continue\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 413, "\(response.head)")
    }

    @Test(.onOwnThread) func aChunkedBodyIsRefusedOnceItsChunksExceedTheLimit() throws {
        let calls = Box(0)
        let server = try Self.server(maximumRequestBodySize: 8, calls: calls)
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        let head = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        try client.send(head + "4\r\nabcd\r\n4\r\nefgh\r\n0\r\n\r\n")
        #expect(try client.readResponse().text == "8")
        // Each chunk is small; the third crosses the limit, and no byte of it needs reading.
        try client.send(head + "4\r\nabcd\r\n4\r\nefgh\r\n")
        try client.send("1\r\n")
        let response = try client.readResponse()
        #expect(response.status == 413)
        #expect(calls.value == 1)
        #expect(server.statistics.requestsRejected == 1)
    }

    @Test func urlSessionSeesTheTooLargeAnswer() async throws {
        let server = try Self.server(maximumRequestBodySize: 1_024)
        defer { server.shutdown() }
        var request = URLRequest(url: server.url("/upload"))
        request.httpMethod = "POST"
        request.httpBody = Data(repeating: 1, count: 16_384)
        let (data, response) = try await fetch(request)
        #expect(response.statusCode == 413)
        #expect(String(decoding: data, as: UTF8.self).contains("1024 bytes"))
    }

    @Test func aConnectionBeyondTheLimitIsAnsweredServiceUnavailable() async throws {
        let calls = Box(0)
        let server = try Self.server(maximumConnections: 2, calls: calls)
        defer { server.shutdown() }
        let first = try RawClient(port: server.port)
        let second = try RawClient(port: server.port)
        for client in [first, second] {
            try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }

        let third = try RawClient(port: server.port)
        try third.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let refusal = try third.readResponse()
        #expect(refusal.status == 503)
        #expect(refusal.text.contains("maximum of 2 connections"), "\(refusal.text)")
        #expect(refusal.header("Connection") == "close")
        #expect(third.serverClosedConnection())
        #expect(calls.value == 2)
        #expect(server.statistics.connectionsRefused == 1)
        #expect(server.statistics.connectionsAccepted == 3)

        // The kept-alive connections are still served, and a closed one frees its place.
        try second.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try second.readResponse().status == 200)
        first.close()
        let servedAgain = await eventually {
            guard let client = try? RawClient(port: server.port),
                (try? client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")) != nil
            else { return false }
            return (try? client.readResponse().status) == 200
        }
        #expect(servedAgain)
    }

    @Test(.onOwnThread) func refusalsBeyondTheirOwnLimitAreClosedUnanswered() throws {
        let server = try Self.server(maximumConnections: 1)
        defer { server.shutdown() }
        let served = try RawClient(port: server.port)
        try served.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try served.readResponse().status == 200)

        // Refused connections that have not sent their request head yet each hold a thread.
        let limit = LoopbackServer.Configuration.refusingConnectionLimit
        let waiting = try (0..<limit).map { _ in try RawClient(port: server.port) }
        #expect(server.waitForStatistics { $0.connectionsRefused == limit }, "\(server.statistics)")
        let dropped = try RawClient(port: server.port)
        #expect(server.waitForStatistics { $0.connectionsRefused == limit + 1 }, "\(server.statistics)")
        #expect(dropped.serverClosedConnection())

        for client in waiting {
            try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().status == 503)
        }
        try served.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try served.readResponse().status == 200)
    }

    @Test(.onOwnThread) func shutdownEndsConnectionsWaitingToBeRefused() throws {
        let server = try Self.server(maximumConnections: 1)
        let served = try RawClient(port: server.port)
        try served.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try served.readResponse().status == 200)
        let waiting = try RawClient(port: server.port)
        #expect(server.waitForStatistics { $0.connectionsRefused == 1 })
        server.shutdown()  // returns only once the refusing thread has finished
        #expect(waiting.serverClosedConnection())
    }
}
