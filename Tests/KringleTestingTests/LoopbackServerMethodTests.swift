import Foundation
import KringleTestSupport
import KringleTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Methods, bodies and headers through URLSession and curl", .generousTimeLimit)
struct LoopbackServerMethodTests {
    /// Echoes method, path and body so the client can check what the server saw.
    private static func echoServer() throws -> LoopbackServer {
        try LoopbackServer { request in
            .json(#"{"method":"\#(request.method)","path":"\#(request.path)","body":"\#(request.bodyText)"}"#)
                .addingHeader("X-Content-Type-Seen", request.header("content-type") ?? "none")
        }
    }

    @Test(arguments: ["GET", "DELETE"])
    func methodsWithoutBody(method: String) async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        var request = URLRequest(url: server.url("/items/7"))
        request.httpMethod = method
        let (data, response) = try await fetch(request)
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == #"{"method":"\#(method)","path":"/items/7","body":""}"#)
    }

    @Test(arguments: ["POST", "PUT", "PATCH", "DELETE"])
    func methodsWithBody(method: String) async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        var request = URLRequest(url: server.url("/items"))
        request.httpMethod = method
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("payload-\(method)".utf8)
        let (data, response) = try await fetch(request)
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "X-Content-Type-Seen") == "text/plain")
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"method":"\#(method)","path":"/items","body":"payload-\#(method)"}"#)
    }

    @Test func headAnnouncesLengthButSendsNoBody() async throws {
        let server = try LoopbackServer { _ in .text("twelve bytes") }
        defer { server.shutdown() }

        let client = try RawClient(port: server.port)
        try client.send("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readResponse(isHead: true)
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "12")
        // A GET on the same connection parses cleanly only if HEAD sent no body bytes.
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().text == "twelve bytes")

        var request = URLRequest(url: server.url("/"))
        request.httpMethod = "HEAD"
        let (data, response) = try await fetch(request)
        #expect(response.statusCode == 200)
        #expect(data.isEmpty)
    }

    @Test(.onOwnThread) func handlerSeesHeadersInOrderWithRepeats() throws {
        let seen = Recorder<LoopbackServer.Request>()
        let server = try LoopbackServer { request in
            seen.append(request)
            return .status(204)
        }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET /h HTTP/1.1\r\nHost: example\r\nX-Multi: one\r\nx-multi:  two \r\nAccept: */*\r\n\r\n")
        #expect(try client.readResponse().status == 204)
        let request = try #require(seen.elements.first)
        #expect(request.headers.map(\.name) == ["Host", "X-Multi", "x-multi", "Accept"])
        #expect(request.header("X-MULTI") == "one")
        #expect(request.headers(named: "x-multi") == ["one", "two"])
        #expect(request.header("missing") == nil)
        #expect(request.httpVersion == "HTTP/1.1")
    }

    @Test func followsRedirects() async throws {
        let server = try LoopbackServer { request in
            request.path == "/old" ? .redirect(to: "/new") : .text("arrived at \(request.path)")
        }
        defer { server.shutdown() }
        let (data, response) = try await fetch(server.url("/old"))
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "arrived at /new")
    }

    @Test(.requires(.curl), .onOwnThread) func servesCurl() throws {
        let server = try LoopbackServer { request in
            .text("\(request.method) \(request.target) \(request.bodyText)", status: 201)
        }
        defer { server.shutdown() }
        let result = try runCurl([
            "-X", "PUT", "--data-binary", "hello", "-w", " %{http_code}", server.url("/c?x=1").absoluteString,
        ])
        #expect(result.status == 0)
        #expect(result.output == "PUT /c?x=1 hello 201")
    }
}
