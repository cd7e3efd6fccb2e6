import Foundation
import KringleTestSupport
import KringleTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Persistent connections (RFC 9112 §9.3)", .generousTimeLimit)
struct LoopbackServerKeepAliveTests {
    private static func connectionEchoServer() throws -> LoopbackServer {
        try LoopbackServer { request in .text("\(request.connectionID) \(request.path)") }
    }

    @Test(.onOwnThread) func http11ReusesTheConnection() throws {
        let server = try Self.connectionEchoServer()
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET /one HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try client.readResponse()
        try client.send("GET /two HTTP/1.1\r\nHost: x\r\n\r\n")
        let second = try client.readResponse()
        #expect(first.text == "1 /one")
        #expect(second.text == "1 /two")
        #expect(first.header("Connection") == nil)
        #expect(server.statistics.connectionsAccepted == 1)
        #expect(!client.hasDataAvailable())
    }

    @Test(.onOwnThread) func pipelinedRequestsAreAnsweredInOrder() throws {
        let server = try Self.connectionEchoServer()
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send(
            "GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nxyzGET /c HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        #expect(try client.readResponse().text == "1 /a")
        #expect(try client.readResponse().text == "1 /b")
        #expect(try client.readResponse().text == "1 /c")
    }

    @Test(.onOwnThread) func connectionCloseIsHonoured() throws {
        let server = try Self.connectionEchoServer()
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.header("Connection") == "close")
        #expect(client.serverClosedConnection())
    }

    @Test(.onOwnThread) func http10ClosesByDefault() throws {
        let server = try Self.connectionEchoServer()
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.0\r\n\r\n")  // HTTP/1.0 needs no Host
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(response.header("Connection") == "close")
        #expect(client.serverClosedConnection())
    }

    @Test(.onOwnThread) func http10KeepAliveIsHonoured() throws {
        let server = try Self.connectionEchoServer()
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let first = try client.readResponse()
        #expect(first.header("Connection") == "keep-alive")
        try client.send("GET /b HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")
        #expect(try client.readResponse().text == "1 /b")
    }

    @Test(.onOwnThread) func handlerCanCloseTheConnection() throws {
        let server = try LoopbackServer { _ in .text("bye").addingHeader("Connection", "close") }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.headers(named: "Connection") == ["close"], "the server must not add a second Connection field")
        #expect(client.serverClosedConnection())
    }

    @Test func urlSessionReusesItsConnection() async throws {
        let server = try Self.connectionEchoServer()
        defer { server.shutdown() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (first, _) = try await session.data(from: server.url("/1"))
        let (second, _) = try await session.data(from: server.url("/2"))
        #expect(String(decoding: first, as: UTF8.self) == "1 /1")
        #expect(String(decoding: second, as: UTF8.self) == "1 /2")
    }
}
