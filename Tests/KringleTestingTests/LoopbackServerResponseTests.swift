import Foundation
import KringleTestSupport
import KringleTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Responses: headers, framing and deliberate failures", .generousTimeLimit)
struct LoopbackServerResponseTests {
    @Test(.onOwnThread) func repeatedSetCookieFieldsGoOutOnSeparateLines() throws {
        let server = try LoopbackServer { _ in
            .text("cookies")
                .addingHeader("Set-Cookie", "a=1; Path=/")
                .addingHeader("Set-Cookie", "b=2; Expires=Wed, 21 Oct 2099 07:28:00 GMT")
        }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(
            response.head.contains(
                "\r\nSet-Cookie: a=1; Path=/\r\nSet-Cookie: b=2; Expires=Wed, 21 Oct 2099 07:28:00 GMT\r\n"))
        #expect(response.headers(named: "Set-Cookie").count == 2)
    }

    @Test(.onOwnThread) func addsContentLengthDateAndKeepsHandlerHeaderOrder() throws {
        let server = try LoopbackServer { _ in
            LoopbackServer.Response(status: 201, headers: [("X-B", "2"), ("X-A", "1")], body: Data("abc".utf8))
        }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.head.hasPrefix("HTTP/1.1 201 Created\r\nX-B: 2\r\nX-A: 1\r\nContent-Length: 3\r\nDate: "))
        let date = try #require(response.header("Date"))
        #expect(date.hasSuffix(" GMT") && date.count == 29)
        #expect(response.text == "abc")
    }

    @Test(.onOwnThread) func handlerSetContentLengthAndDateAreNotDuplicated() throws {
        let server = try LoopbackServer { _ in
            LoopbackServer.Response(
                headers: [("content-length", "2"), ("Date", "Sun, 06 Nov 1994 08:49:37 GMT")], body: Data("ok".utf8))
        }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.headers(named: "Content-Length") == ["2"])
        #expect(response.headers(named: "Date") == ["Sun, 06 Nov 1994 08:49:37 GMT"])
    }

    @Test(.onOwnThread, arguments: [204, 304])
    func statusesWithoutContentSendNoBodyOrLength(status: Int) throws {
        let server = try LoopbackServer { _ in LoopbackServer.Response(status: status, body: Data("ignored".utf8)) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try client.readResponse()
        #expect(first.status == status)
        #expect(first.header("Content-Length") == nil)
        #expect(try client.readResponse().status == status, "no stray body bytes between the responses")
    }

    @Test func chunkedBehaviorEncodesTheBody() async throws {
        let text = String(repeating: "0123456789", count: 10)
        let server = try LoopbackServer { _ in .text(text).withBehavior(.chunked(chunkSize: 7)) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.header("Transfer-Encoding") == "chunked")
        #expect(response.header("Content-Length") == nil)
        #expect(response.text == text)

        let (data, _) = try await fetch(server.url("/"))
        #expect(String(decoding: data, as: UTF8.self) == text)
    }

    @Test(.onOwnThread) func chunkedBehaviorFallsBackToCloseDelimitedForHTTP10() throws {
        let server = try LoopbackServer { _ in .text("old client").withBehavior(.chunked()) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.header("Transfer-Encoding") == nil)
        #expect(response.text == "old client")
    }

    @Test func closeMidBodyTruncatesTheBody() async throws {
        let body = String(repeating: "x", count: 1000)
        let server = try LoopbackServer { _ in .text(body).withBehavior(.closeMidBody) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = String(decoding: try client.readHead(), as: UTF8.self)
        #expect(head.contains("Content-Length: 1000\r\n"))
        #expect(client.readUntilClose().count == 500)

        await #expect(throws: (any Error).self) { try await fetch(server.url("/")) }
        #expect(server.statistics.responsesCompleted == 0)
    }

    @Test func closeWithoutResponseSendsNothing() async throws {
        let server = try LoopbackServer { _ in .text("never").withBehavior(.closeWithoutResponse) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(client.readUntilClose().isEmpty)
        await #expect(throws: (any Error).self) { try await fetch(server.url("/")) }
    }

    @Test(.requires(.curl), .onOwnThread) func resetWithoutResponseResets() throws {
        let server = try LoopbackServer { _ in .text("never").withBehavior(.resetWithoutResponse) }
        defer { server.shutdown() }
        let result = try runCurl([server.url("/").absoluteString])
        #expect(result.status == 56, "curl reports 'failure receiving network data' for a reset")  // CURLE_RECV_ERROR
        #expect(result.output.isEmpty)
    }

    @Test(.requires(.curl)) func resetMidBodySendsHalfTheBodyThenResets() async throws {
        let body = String(repeating: "x", count: 1000)
        let server = try LoopbackServer { _ in .text(body).withBehavior(.resetMidBody) }
        defer { server.shutdown() }
        let result = try runCurl([server.url("/").absoluteString])
        #expect(result.status == 56, "curl reports 'failure receiving network data' for a reset")  // CURLE_RECV_ERROR
        #expect(result.output.count == 500)
        #expect(server.statistics.responsesCompleted == 0)
    }

    @Test(.onOwnThread) func invalidStatusFromHandlerBecomes500() throws {
        let server = try LoopbackServer { _ in .status(42) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 500)
        #expect(response.text.contains("42"))
    }
}
