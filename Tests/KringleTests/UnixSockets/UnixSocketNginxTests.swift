import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import NginxTestServer
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// nginx listening on Unix sockets (`listen unix:…`), a server in a process of its own: one
/// per test, stopped by it (`.ci/run` installs nginx; without it these tests are skipped).
@Suite("Unix sockets: nginx", .requires(.nginx), .generousTimeLimit)
struct UnixSocketNginxTests {
    private static let payload = #"{"name": "Tom", "mood": "socketed"}"#

    /// nginx on a plain socket (and on a TLS one, with the test CA's `localhost` certificate,
    /// when `tls` is set), its `www` holding `item.json`, `dir/index.html` and `fresh/cat.json`.
    private static func withNginx(
        tls: Bool = false, _ body: (_ plain: UnixSocketURL, _ secure: UnixSocketURL) async throws -> Void
    ) async throws {
        let plainPath = freshSocketPath("nginx")
        let securePath = freshSocketPath("nginx-tls")
        let certificates = NginxServer.TLS(
            certificate: TLSTestServer.fixture("localhost.pem"), key: TLSTestServer.fixture("localhost.key"))
        let server = try await onOwnThread {
            try NginxServer.start(
                path: "/item.json", tls: tls ? certificates : nil, unixSocket: plainPath,
                tlsUnixSocket: tls ? securePath : nil
            ) { www in
                try payload.write(to: www.appendingPathComponent("item.json"), atomically: true, encoding: .utf8)
                let directory = www.appendingPathComponent("dir")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try payload.write(
                    to: directory.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
                let fresh = www.appendingPathComponent("fresh")
                try FileManager.default.createDirectory(at: fresh, withIntermediateDirectories: true)
                try payload.write(to: fresh.appendingPathComponent("cat.json"), atomically: true, encoding: .utf8)
            }.get()
        }
        defer {
            server.stop()
            for path in [plainPath, securePath] { try? FileManager.default.removeItem(atPath: path) }
        }
        try await body(UnixSocketURL(socketPath: plainPath), UnixSocketURL(socketPath: securePath, usesTLS: true))
    }

    @Test("GET over the socket gets what TCP gets")
    func get() async throws {
        try await Self.withNginx { socket, _ in
            let client = unixSocketClient()
            let response = try await client.request(
                .get, ClientTestEndpoint(baseURL: socket.url, path: "/item.json"), as: ClientCat.self
            ).valueWithin()
            #expect(response.statusCode == 200)
            #expect(response.value == ClientCat(name: "Tom", mood: "socketed"))
            #expect(response.headers["Server"]?.hasPrefix("nginx") == true)
            #expect(response.url.absoluteString == socket.url.absoluteString + "/item.json")
        }
    }

    @Test("nginx's redirect from /dir to http://localhost/dir/ is followed on the socket")
    func directoryRedirect() async throws {
        try await Self.withNginx { socket, _ in
            let transport = CurlTransport()
            let first = try await transport.send(HTTPRequest(url: socket.url.appendingPathComponent("dir")))
                .valueWithin()
            #expect(first.statusCode == 301)
            let location = try #require(first.headers["Location"])
            #expect(location.hasPrefix("http://localhost"), "nginx names itself by the Host it was sent")

            let response = try await unixSocketClient().request(
                .get, ClientTestEndpoint(baseURL: socket.url, path: "/dir"), as: ClientCat.self
            ).valueWithin()
            #expect(response.value.mood == "socketed")
            #expect(response.url.absoluteString == socket.url.absoluteString + "/dir/")
        }
    }

    @Test("PUT uploads a body over the socket, which a GET then reads back")
    func upload() async throws {
        try await Self.withNginx { socket, _ in
            let client = unixSocketClient()
            let cat = ClientCat(name: "Felix", mood: "uploaded")
            let endpoint = ClientTestEndpoint(baseURL: socket.url, path: "/uploads/felix.json")
            _ = try await client.request(.put, endpoint, body: .json(cat), as: Data.self).valueWithin()
            let back = try await client.request(.get, endpoint, as: ClientCat.self).valueWithin()
            #expect(back.value == cat)
        }
    }

    @Test("a fresh response from the socket (nginx's expires 1h) is answered from the cache")
    func cache() async throws {
        try await Self.withNginx { socket, _ in
            let client = unixSocketClient {
                $0.cache = .memory()
                $0.clock = ManualClock(now: Date())
            }
            let endpoint = ClientTestEndpoint(baseURL: socket.url, path: "/fresh/cat.json")
            let first = try await client.request(.get, endpoint, as: ClientCat.self).valueWithin()
            let second = try await client.request(.get, endpoint, as: ClientCat.self).valueWithin()
            #expect(first.headers["Cache-Control"] == "max-age=3600")
            #expect(first.cacheStatus == .network)
            #expect(second.cacheStatus == .hit)
            #expect(second.value == first.value)
        }
    }

    @Test("https+unix speaks TLS over the socket, the certificate checked against localhost")
    func tls() async throws {
        try await Self.withNginx(tls: true) { _, secure in
            let client = NetworkClient(transport: CurlTransport(configuration: .trustingTestCA()))
            let response = try await client.request(
                .get, ClientTestEndpoint(baseURL: secure.url, path: "/item.json"), as: ClientCat.self
            ).valueWithin()
            #expect(response.value.mood == "socketed")
            #expect(response.metrics?.exchanges.first?.metrics?.secureConnect != nil, "a TLS handshake was timed")

            let untrusting = NetworkClient(transport: CurlTransport())
            let refused = await untrusting.request(
                .get, ClientTestEndpoint(baseURL: secure.url, path: "/item.json"), as: ClientCat.self
            ).outcome()
            guard case .failure(KringleError.tls) = refused else {
                Issue.record("expected a TLS failure without the test CA, got \(refused)")
                return
            }
        }
    }
}
