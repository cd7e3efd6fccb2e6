import Foundation
import Kringle
import KringlePromise
import KringleTestSupport
import NginxTestServer
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// nginx with HTTP/2 over TLS and the test CA's `localhost` certificate, one per test and
/// stopped by it: a server left running would hold the test process's output open (`.ci/run`
/// installs nginx; without it these tests are skipped, saying so).
@Suite("HTTP/2 over TLS", .requires(.nginx), .generousTimeLimit)
struct HTTP2Tests {
    private static func withServer(_ body: (NginxServer, ClientTestEndpoint) async throws -> Void) async throws {
        let tls = NginxServer.TLS(
            certificate: TLSTestServer.fixture("localhost.pem"), key: TLSTestServer.fixture("localhost.key"))
        let server = try await onOwnThread {
            try NginxServer.start(serving: #"{"name": "Tom", "mood": "multiplexed"}"#, tls: tls).get()
        }
        defer { server.stop() }
        let url = try #require(server.httpsURL)
        try await body(
            server, ClientTestEndpoint(baseURL: url.deletingLastPathComponent(), path: url.lastPathComponent))
    }

    private static func client(_ configure: (inout CurlTransport.Configuration) -> Void = { _ in }) -> NetworkClient {
        NetworkClient(transport: CurlTransport(configuration: .trustingTestCA(configure)))
    }

    @Test("CurlTransport negotiates HTTP/2 by default and reports it; asked for HTTP/1.1, it gets that")
    func negotiates() async throws {
        try await Self.withServer { _, endpoint in
            let h2 = try await Self.client().request(.get, endpoint, as: Data.self).valueWithin()
            #expect(h2.httpVersion == .http2)
            #expect(h2.metrics?.exchanges.first?.metrics?.secureConnect != nil, "a TLS handshake was timed")
            let h1 = try await Self.client { $0.httpVersion = .http1_1 }.request(.get, endpoint, as: Data.self)
                .valueWithin()
            #expect(h1.httpVersion == .http1_1)
        }
    }

    @Test("requests started together share one HTTP/2 connection")
    func multiplexes() async throws {
        try await Self.withServer { server, endpoint in
            let client = Self.client()
            let before = try #require(await onOwnThread { server.acceptedConnections() })
            let responses = try await Promise.all((0..<8).map { _ in client.request(.get, endpoint, as: Data.self) })
                .valueWithin()
            let after = try #require(await onOwnThread { server.acceptedConnections() })
            #expect(responses.allSatisfy { $0.httpVersion == .http2 && $0.statusCode == 200 })
            #expect(after - before == 1, "\(after - before) connections for 8 requests started together")
            let reused = responses.compactMap { $0.metrics?.exchanges.first?.metrics?.reusedConnection }
            #expect(reused.filter { !$0 }.count == 1, "one opened the connection, the others rode on it: \(reused)")
        }
    }
}
