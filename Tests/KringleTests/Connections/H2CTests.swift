import Foundation
import Kringle
import KringleTestSupport
import NginxTestServer
import Testing

@testable import KringleCore

/// HTTP/2 without TLS, against nginx's plain `listen … http2` port, which speaks nothing
/// but HTTP/2.
@Suite("h2c: HTTP/2 with prior knowledge", .requires(.nginx), .generousTimeLimit)
struct H2CTests {
    /// nginx serving a cat, started on a thread of its own (it waits until nginx answers).
    private static func startNginx() async throws -> NginxServer {
        try await onOwnThread { try NginxServer.start(serving: #"{"name": "Tom", "mood": "plain"}"#).get() }
    }

    private static func endpoint(_ server: NginxServer) -> ClientTestEndpoint {
        endpoint(url: server.h2cURL)
    }

    private static func endpoint(url: URL) -> ClientTestEndpoint {
        ClientTestEndpoint(baseURL: url.deletingLastPathComponent(), path: url.lastPathComponent)
    }

    @Test("http2PriorKnowledge speaks HTTP/2 to a plain http URL, for requests at once and one after another")
    func priorKnowledge() async throws {
        let server = try await Self.startNginx()
        defer { server.stop() }
        let client = NetworkClient(transport: CurlTransport(configuration: .init(httpVersion: .http2PriorKnowledge)))
        let before = try #require(await onOwnThread { server.acceptedConnections() })
        let calls = (0..<6).map { _ in client.request(.get, Self.endpoint(server), as: ClientCat.self) }
        for call in calls {
            let response = try await call.valueWithin()
            #expect(response.httpVersion == .http2)
            #expect(response.value == ClientCat(name: "Tom", mood: "plain"))
        }
        for _ in 0..<3 {
            let response = try await client.request(.get, Self.endpoint(server), as: ClientCat.self).valueWithin()
            #expect(response.httpVersion == .http2)
        }
        // A connection each (libcurl 7.88 cannot reuse a plain HTTP/2 one); the status page's
        // own connection counted once, as `before` did.
        #expect(await onOwnThread { server.acceptedConnections() } == before + 9)
    }

    @Test("without prior knowledge, the h2c-only port cannot be spoken to: a malformed response, not a hang")
    func http1Refused() async throws {
        let server = try await Self.startNginx()
        defer { server.stop() }
        let client = NetworkClient(transport: CurlTransport(configuration: .init(httpVersion: .http1_1)))
        let outcome = await client.get(Self.endpoint(server), as: Data.self).outcome()
        // The answer is HTTP/2 frames, which an HTTP/1.1 client reads as no status line at
        // all: a malformed response, at once (a hang would be `PromiseError.timedOut`).
        guard case .failure(KringleError.malformedResponse(let url, let reason)) = outcome else {
            Issue.record("expected malformedResponse, got \(outcome)")
            return
        }
        #expect(url == server.h2cURL)
        #expect(!reason.isEmpty)
    }

    @Test("http2PriorKnowledge against nginx's HTTP/1.1 port: unsupportedConfiguration, not retried")
    func nginxHTTP1PortRefuses() async throws {
        let server = try await Self.startNginx()
        defer { server.stop() }
        let client = NetworkClient(
            configuration: H2CRefusal.retrying,
            transport: CurlTransport(configuration: .init(httpVersion: .http2PriorKnowledge)))
        let before = try #require(await onOwnThread { server.acceptedConnections() })

        let error = await client.get(Self.endpoint(url: server.url), as: Data.self).outcome(within: 60).failure

        H2CRefusal.expectRefused(error, url: server.url)
        // One connection for the request (the status page's own was counted in `before`).
        #expect(await onOwnThread { server.acceptedConnections() } == before + 1)
    }
}
