import Foundation
import KringleTestSupport
import KringleTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Request bodies: Content-Length, chunked, 100-continue, large", .generousTimeLimit)
struct LoopbackServerRequestBodyTests {
    /// Answers with the body length and its text (for short bodies).
    private static func bodyEchoServer() throws -> LoopbackServer {
        try LoopbackServer { request in
            .text(request.body.count <= 64 ? "\(request.body.count):\(request.bodyText)" : "\(request.body.count)")
        }
    }

    @Test(.onOwnThread) func contentLengthBodyArrivingInPieces() throws {
        let server = try Self.bodyEchoServer()
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello")
        try client.send(" world")
        #expect(try client.readResponse().text == "11:hello world")
    }

    @Test(.onOwnThread) func chunkedBodyWithExtensionsAndTrailers() throws {
        let server = try Self.bodyEchoServer()
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        try client.send("5;name=value\r\nhello\r\n")
        try client.send("1\r\n \r\nA \r\n0123456789\r\n0\r\nX-Trailer: yes\r\n\r\n")
        #expect(try client.readResponse().text == "16:hello 0123456789")
        // The connection stays usable afterwards.
        try client.send("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        #expect(try client.readResponse().text == "0:")
    }

    @Test func urlSessionStreamedBodyIsChunked() async throws {
        let seen = Recorder<LoopbackServer.Request>()
        let server = try LoopbackServer { request in
            seen.append(request)
            return .text("\(request.body.count)")
        }
        defer { server.shutdown() }
        let payload = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        var request = URLRequest(url: server.url("/upload"))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: payload)
        let (data, _) = try await fetch(request)
        #expect(String(decoding: data, as: UTF8.self) == "100000")
        let received = try #require(seen.elements.first)
        #expect(received.body == payload)
    }

    @Test(.onOwnThread) func expectContinueGetsInterimResponseBeforeBody() throws {
        let server = try Self.bodyEchoServer()
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        let interim = try client.readHead()
        #expect(String(decoding: interim, as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
        try client.send("data")
        #expect(try client.readResponse().text == "4:data")
    }

    @Test(.requires(.curl), .onOwnThread) func curlLargeUploadUsesExpectContinue() throws {
        let seen = Recorder<String>()
        let server = try LoopbackServer { request in
            seen.append(request.header("expect") ?? "none")
            return .text("\(request.body.count)")
        }
        defer { server.shutdown() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("loopback-upload-\(UUID().uuidString)")
        try Data(repeating: 42, count: 3_000_000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try runCurl(["--data-binary", "@\(file.path)", server.url("/big").absoluteString])
        #expect(result.status == 0)
        #expect(result.output == "3000000")
        #expect(seen.elements == ["100-continue"])
    }

    @Test(.requires(.curl), .onOwnThread) func hundredMegabyteUploadAndDownload() throws {
        let size = 100 << 20
        let body = Data(repeating: 7, count: size)
        let server = try LoopbackServer { request in
            request.path == "/download" ? .data(body) : .text("\(request.body.count) \(request.body.last ?? 0)")
        }
        defer { server.shutdown() }

        let client = try RawClient(port: server.port, timeout: 30)
        try client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: \(size)\r\n\r\n")
        try client.send([UInt8](repeating: 9, count: size))
        #expect(try client.readResponse().text == "\(size) 9")

        let result = try runCurl(["-o", "/dev/null", "-w", "%{size_download}", server.url("/download").absoluteString])
        #expect(result.status == 0)
        #expect(result.output == "\(size)")
    }
}
