import Foundation
import Kringle
import KringlePromise
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// NetworkClient over CurlTransport to a LoopbackServer on a Unix socket: every stage of the
/// pipeline behaves as it does over TCP.
@Suite("Unix sockets: LoopbackServer", .generousTimeLimit)
struct UnixSocketLoopbackTests {
    @Test("GET reaches the socket with the path, query and Host: localhost")
    func get() async throws {
        let seen = Recorder<LoopbackServer.Request>()
        let server = try unixSocketServer { request in
            seen.append(request)
            return .json(#"{"name": "Tom", "mood": "local"}"#)
        }
        defer { server.shutdown() }
        let endpoint = server.clientEndpoint("/cats/Tom Cat", query: [URLQueryItem(name: "all", value: "1")])
        let response = try await unixSocketClient().request(.get, endpoint, as: ClientCat.self).valueWithin()
        #expect(response.value == ClientCat(name: "Tom", mood: "local"))
        #expect(response.url == server.url("/cats/Tom%20Cat?all=1"))
        #expect(response.url.scheme == "http+unix")
        let request = try #require(seen.elements.first)
        #expect(request.method == "GET")
        #expect(request.target == "/cats/Tom%20Cat?all=1")
        #expect(request.header("Host") == "localhost")
    }

    @Test("POST sends its JSON body and decodes the answer")
    func post() async throws {
        let server = try unixSocketServer { request in
            request.method == "POST" ? .json(request.bodyText, status: 201) : .status(405)
        }
        defer { server.shutdown() }
        let cat = ClientCat(name: "Felix", mood: "posted")
        let response = try await unixSocketClient().request(
            .post, server.clientEndpoint("/cats"), body: .json(cat), as: ClientCat.self
        ).valueWithin()
        #expect(response.statusCode == 201)
        #expect(response.value == cat)
    }

    @Test("redirects stay on the socket: a relative Location, and http://localhost as the server knows itself")
    func redirects() async throws {
        let paths = Recorder<String>()
        let server = try unixSocketServer { request in
            paths.append(request.path)
            switch request.path {
            case "/old": return .redirect(to: "/dir")
            case "/dir": return .redirect(to: "http://localhost/dir/", status: 301)
            case "/dir/": return .json(#"{"name": "Tom", "mood": "moved"}"#)
            default: return .status(404)
            }
        }
        defer { server.shutdown() }
        let response = try await unixSocketClient().request(
            .get, server.clientEndpoint("/old"), as: ClientCat.self
        ).valueWithin()
        #expect(response.value.mood == "moved")
        #expect(response.url == server.url("/dir/"))
        #expect(paths.elements == ["/old", "/dir", "/dir/"])
    }

    @Test("cookies set over the socket come back on the next request to it, not to another socket")
    func cookies() async throws {
        let cookies = Recorder<String?>()
        let handler: @Sendable (LoopbackServer.Request) -> LoopbackServer.Response = { request in
            if request.path == "/login" {
                return .status(204).addingHeader("Set-Cookie", "sid=31d4d96e; Path=/; HttpOnly")
            }
            cookies.append(request.header("Cookie"))
            return .status(204)
        }
        let server = try unixSocketServer(handler)
        defer { server.shutdown() }
        let other = try unixSocketServer(handler)
        defer { other.shutdown() }
        let client = unixSocketClient()
        _ = try await client.request(.get, server.clientEndpoint("/login"), as: Data.self).valueWithin()
        _ = try await client.request(.get, server.clientEndpoint("/me"), as: Data.self).valueWithin()
        _ = try await client.request(.get, other.clientEndpoint("/me"), as: Data.self).valueWithin()
        #expect(cookies.elements == ["sid=31d4d96e", nil])
        let jar = try #require(client.configuration.cookieJar)
        #expect(jar.allCookies.map(\.domain) == [CookieRequestURL(server.baseURL)?.host])
    }

    @Test("a fresh response is answered from the cache, keyed by the socket's URL")
    func cache() async throws {
        let served = Counter()
        let handler: @Sendable (LoopbackServer.Request) -> LoopbackServer.Response = { _ in
            .json(#"{"name": "Tom", "mood": "n\#(served.increment())"}"#).addingHeader("Cache-Control", "max-age=60")
        }
        let server = try unixSocketServer(handler)
        defer { server.shutdown() }
        let other = try unixSocketServer(handler)
        defer { other.shutdown() }
        // The client's clock stands still: the answer stays fresh however slow the machine.
        let client = unixSocketClient {
            $0.cache = .memory()
            $0.clock = ManualClock(now: Date())
        }
        let first = try await client.request(.get, server.clientEndpoint("/cat"), as: ClientCat.self)
            .valueWithin()
        let second = try await client.request(.get, server.clientEndpoint("/cat"), as: ClientCat.self)
            .valueWithin()
        let elsewhere = try await client.request(.get, other.clientEndpoint("/cat"), as: ClientCat.self)
            .valueWithin()
        #expect(first.cacheStatus == .network)
        #expect(second.cacheStatus == .hit)
        #expect(second.value == first.value)
        #expect(elsewhere.cacheStatus == .network, "another socket, the same path: another resource")
        #expect(server.statistics.requestsReceived == 1)
        #expect(other.statistics.requestsReceived == 1)
    }

    @Test("a streamed response arrives chunk by chunk over the socket")
    func stream() async throws {
        let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let server = try unixSocketServer { _ in
            var response = LoopbackServer.Response.data(body)
            response.behavior = .chunked(chunkSize: 8192)
            return response
        }
        defer { server.shutdown() }
        let stream = unixSocketClient().stream(server.clientEndpoint("/logs"))
        #expect(try await stream.response.statusCode == 200)
        var received = Data()
        for try await chunk in stream { received.append(chunk) }
        #expect(received == body)
    }

    @Test("a download goes to its file over the socket")
    func download() async throws {
        let body = Data(repeating: 0x2A, count: 300_000)
        let server = try unixSocketServer { _ in .data(body) }
        defer { server.shutdown() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("unix-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let request = try ValidatedRequest(HTTPRequest(url: server.url("/blob")))
        let response = try await CurlTransport().transfer(TransferRequest(request: request, responseBodyFile: file))
            .valueWithin()
        #expect(response.statusCode == 200)
        #expect(try Data(contentsOf: file) == body)
    }

    @Test("one transport keeps two sockets' connections apart, and reuses each")
    func twoSockets() async throws {
        let first = try unixSocketServer { _ in .text("first") }
        defer { first.shutdown() }
        let second = try unixSocketServer { _ in .text("second") }
        defer { second.shutdown() }
        let client = unixSocketClient()
        for _ in 0..<3 {
            let one = try await client.request(.get, first.clientEndpoint("/"), as: Data.self).valueWithin()
            let two = try await client.request(.get, second.clientEndpoint("/"), as: Data.self).valueWithin()
            #expect(String(decoding: one.body, as: UTF8.self) == "first")
            #expect(String(decoding: two.body, as: UTF8.self) == "second")
        }
        #expect(first.statistics.requestsReceived == 3)
        #expect(first.statistics.connectionsAccepted == 1)
        #expect(second.statistics.connectionsAccepted == 1)
    }

    @Test("no server at the path fails as a transport error naming the connection, not as another request")
    func nobodyListening() async throws {
        let url = UnixSocketURL(socketPath: freshSocketPath("none")).url.appendingPathComponent("x")
        let result = await CurlTransport().send(HTTPRequest(url: url)).outcome(within: 30)
        guard case .failure(KringleError.transport(let underlying)) = result else {
            Issue.record("expected a transport error, got \(result)")
            return
        }
        #expect(underlying is CurlError)
    }
}
