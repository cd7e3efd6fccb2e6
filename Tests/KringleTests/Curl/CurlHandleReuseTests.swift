import Foundation
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// A handle given back after a plain GET keeps its options for the next plain GET
/// (`EasyHandle.keptShape`): nothing of one request may reach the next, whatever the order.
@Suite(.generousTimeLimit) struct CurlHandleReuseTests {
    /// What the server saw of each request, as the response body: method, body, and the
    /// value of `X-Marker` ("none" without one).
    static func echoServer() throws -> LoopbackServer {
        try LoopbackServer { request in
            .text(
                "\(request.method) \(String(decoding: request.body, as: UTF8.self)) \(request.header("x-marker") ?? "none")"
            )
        }
    }

    @Test("requests one after another on one handle arrive each as sent: method, body, fields")
    func nothingCarriesOver() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let transport = CurlTransport()
        let url = server.url("/echo")
        // Each step after a different kind of request: a plain GET reuses the handle of a
        // plain GET, anything else starts from a reset one.
        let steps: [(method: String, body: String?, marker: String?, seen: String)] = [
            ("GET", nil, "one", "GET  one"),
            ("GET", nil, nil, "GET  none"),
            ("POST", "x=1", nil, "POST x=1 none"),
            ("GET", nil, nil, "GET  none"),
            ("PUT", "put", "two", "PUT put two"),
            ("GET", nil, nil, "GET  none"),
            ("DELETE", nil, nil, "DELETE  none"),
            ("GET", nil, "three", "GET  three"),
        ]
        for step in steps {
            let request = makeRequest(
                url, method: step.method, body: step.body.map { Data($0.utf8) },
                headers: step.marker.map { ["X-Marker": $0] } ?? [:])
            let response = try await transport.send(request).valueWithin()
            #expect(String(decoding: response.body, as: UTF8.self) == step.seen)
        }
    }

    @Test("a GET after a HEAD reads its body; a HEAD after a GET reads none")
    func headAndGetTakeTurns() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let transport = CurlTransport()
        let url = server.url("/echo")
        for method in ["GET", "HEAD", "GET", "GET", "HEAD", "GET"] {
            let response = try await transport.send(makeRequest(url, method: method)).valueWithin()
            #expect(response.statusCode == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == (method == "HEAD" ? "" : "GET  none"))
        }
    }

    @Test("a GET after a transfer that failed succeeds")
    func getAfterFailures() async throws {
        let server = try Self.echoServer()
        defer { server.shutdown() }
        let transport = CurlTransport()
        let refused = URL(string: "http://127.0.0.1:\(try refusedPort())/")!
        await #expect(throws: (any Error).self) { try await transport.send(makeRequest(refused)).valueWithin() }
        let response = try await transport.send(makeRequest(server.url("/echo"))).valueWithin()
        #expect(String(decoding: response.body, as: UTF8.self) == "GET  none")
    }
}
