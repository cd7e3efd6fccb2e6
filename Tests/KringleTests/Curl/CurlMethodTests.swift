import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// Each method reaches the server as itself, with the body only where one was given.
@Suite(.generousTimeLimit) struct CurlMethodTests {
    /// A server that answers with what it received: method, body length and Content-Length.
    static func echoServer() throws -> LoopbackServer {
        try LoopbackServer { request in
            .text(request.method)
                .addingHeader("X-Body-Length", String(request.body.count))
                .addingHeader("X-Content-Length", request.header("content-length") ?? "none")
                .addingHeader("X-Content-Type", request.header("content-type") ?? "none")
        }
    }

    @Test(
        arguments: [
            // method, body, expected Content-Length at the server
            ("GET", nil, "none"),
            ("DELETE", nil, "none"),
            ("OPTIONS", nil, "none"),
            ("POST", "x=1", "3"),
            ("POST", nil, "0"),
            ("PUT", "put body", "8"),
            ("PUT", nil, "0"),
            ("PATCH", "{\"a\":1}", "7"),
            ("DELETE", "gone", "4"),
            ("PURGE", nil, "none"),
            ("REPORT", "<r/>", "4"),
        ] as [(String, String?, String)])
    func methodArrivesAsSent(method: String, body: String?, contentLength: String) async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let transport = CurlTransport()
        let request = makeRequest(server.url("/m"), method: method, body: body.map { Data($0.utf8) })

        let response = try await transport.send(request).valueWithin()

        #expect(response.statusCode == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == method)
        #expect(response.headers["X-Body-Length"] == String(body?.utf8.count ?? 0))
        #expect(response.headers["X-Content-Length"] == contentLength)
        // curl's default form content type must not be invented for a raw body.
        #expect(response.headers["X-Content-Type"] == "none")
    }

    @Test func headSendsNoBodyAndReadsNone() async throws {
        let server = try LoopbackServer { request in
            .text(String(repeating: "h", count: 50)).addingHeader("X-Method", request.method)
        }
        defer { server.shutdown() }

        let response = try await CurlTransport().send(makeRequest(server.url("/"), method: "HEAD")).valueWithin()

        #expect(response.statusCode == 200)
        #expect(response.headers["X-Method"] == "HEAD")
        #expect(response.headers["Content-Length"] == "50")
        #expect(response.body.isEmpty)
    }

    @Test func givenContentTypeIsKept() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let request = makeRequest(
            server.url("/"), method: "POST", body: Data("{}".utf8), headers: ["Content-Type": "application/json"]
        )

        let response = try await CurlTransport().send(request).valueWithin()

        #expect(response.headers["X-Content-Type"] == "application/json")
    }
}
