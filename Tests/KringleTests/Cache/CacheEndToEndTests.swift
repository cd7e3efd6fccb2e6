import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The cache against a real server on 127.0.0.1, over every transport: what reaches the
/// server is counted, so a hit is one the server never saw.
@Suite("HTTP cache end to end", .generousTimeLimit)
struct CacheEndToEndTests {
    /// The time every test starts at, and the `Date` the servers send with it.
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let startHTTPDate = "Tue, 14 Nov 2023 22:13:20 GMT"

    /// A client whose cache and clock are the test's.
    private static func client(
        _ transport: TransportUnderTest, cache: HTTPCache, clock: ManualClock
    ) -> NetworkClient {
        transport.client {
            $0.cache = cache
            $0.clock = clock
        }
    }

    private static func get(
        _ client: NetworkClient, _ server: LoopbackServer, _ path: String, headers: [String: String] = [:]
    ) async throws -> Response<Data> {
        try await client.request(.get, server.clientEndpoint(path, headers: headers), as: Data.self).value
    }

    @Test("§4 a fresh stored response answers without the network", arguments: TransportUnderTest.allCases)
    func freshHit(_ transport: TransportUnderTest) async throws {
        let served = Counter()
        let server = try Self.freshServer(counting: served)
        let clock = ManualClock(now: Self.start)
        let client = Self.client(transport, cache: .memory(), clock: clock)

        let first = try await Self.get(client, server, "/cat")
        clock.advance(by: 30)
        let second = try await Self.get(client, server, "/cat")

        #expect(first.cacheStatus == .network)
        #expect(second.cacheStatus == .hit)
        #expect(second.body == first.body)
        #expect(second.headers["Age"] == "30")
        #expect(served.value == 1)
    }

    @Test(
        "§4.3.4 a 304 updates the stored fields and answers with the stored body",
        arguments: TransportUnderTest.allCases)
    func revalidation(_ transport: TransportUnderTest) async throws {
        let conditions = Recorder<String?>()
        let server = try LoopbackServer { request in
            conditions.append(request.header("If-None-Match"))
            guard request.header("If-None-Match") == #""v1""# else {
                return .json(#"{"version":1}"#).addingHeader("Cache-Control", "max-age=10")
                    .addingHeader("ETag", #""v1""#).addingHeader("X-Revision", "1")
                    .addingHeader("Date", Self.startHTTPDate)
            }
            return LoopbackServer.Response(
                status: 304,
                headers: [
                    ("Cache-Control", "max-age=10"), ("ETag", #""v1""#), ("X-Revision", "2"),
                    ("Date", "Tue, 14 Nov 2023 22:13:40 GMT"),
                ], body: Data())
        }
        let clock = ManualClock(now: Self.start)
        let client = Self.client(transport, cache: .memory(), clock: clock)

        let first = try await Self.get(client, server, "/doc")
        clock.advance(by: 20)  // stale: max-age is 10
        let revalidated = try await Self.get(client, server, "/doc")
        let hit = try await Self.get(client, server, "/doc")  // fresh again, from the 304

        #expect(conditions.elements == [nil, #""v1""#])
        #expect(revalidated.cacheStatus == .revalidated)
        #expect(revalidated.statusCode == 200)
        #expect(revalidated.body == first.body)
        #expect(revalidated.headers["X-Revision"] == "2")
        #expect(revalidated.headers.values(for: "X-Revision").count == 1)
        #expect(hit.cacheStatus == .hit)
        #expect(hit.headers["X-Revision"] == "2")
    }

    @Test("§4.1 responses are selected by the request fields Vary names", arguments: TransportUnderTest.allCases)
    func vary(_ transport: TransportUnderTest) async throws {
        let served = Counter()
        let server = try LoopbackServer { request in
            _ = served.increment()
            return .text(request.header("Accept-Language") ?? "none").addingHeader("Cache-Control", "max-age=60")
                .addingHeader("Vary", "Accept-Language").addingHeader("Date", Self.startHTTPDate)
        }
        let client = Self.client(transport, cache: .memory(), clock: ManualClock(now: Self.start))

        let english = try await Self.get(client, server, "/hello", headers: ["Accept-Language": "en"])
        let french = try await Self.get(client, server, "/hello", headers: ["Accept-Language": "fr"])
        let englishAgain = try await Self.get(client, server, "/hello", headers: ["Accept-Language": "en"])
        let frenchAgain = try await Self.get(client, server, "/hello", headers: ["Accept-Language": "fr"])

        #expect(String(decoding: englishAgain.body, as: UTF8.self) == "en")
        #expect(String(decoding: frenchAgain.body, as: UTF8.self) == "fr")
        #expect([english, french, englishAgain, frenchAgain].map(\.cacheStatus) == [.network, .network, .hit, .hit])
        #expect(served.value == 2)
    }

    @Test("§3 a no-store response is never stored", arguments: TransportUnderTest.allCases)
    func noStore(_ transport: TransportUnderTest) async throws {
        let served = Counter()
        let server = try LoopbackServer { _ in
            _ = served.increment()
            return .json("{}").addingHeader("Cache-Control", "no-store, max-age=60")
        }
        let cache = HTTPCache.memory()
        let client = Self.client(transport, cache: cache, clock: ManualClock(now: Self.start))

        let first = try await Self.get(client, server, "/secret")
        let second = try await Self.get(client, server, "/secret")

        #expect([first.cacheStatus, second.cacheStatus] == [.network, .network])
        #expect(served.value == 2)
        #expect(cache.storage.responses(forKey: server.url("/secret").absoluteString).isEmpty)
    }

    @Test("§4.4 a POST to a stored URL invalidates it", arguments: TransportUnderTest.allCases)
    func invalidationByPost(_ transport: TransportUnderTest) async throws {
        let methods = Recorder<String>()
        let server = try LoopbackServer { request in
            methods.append(request.method)
            return .json("{}").addingHeader("Cache-Control", "max-age=60").addingHeader("Date", Self.startHTTPDate)
        }
        let client = Self.client(transport, cache: .memory(), clock: ManualClock(now: Self.start))
        let endpoint = server.clientEndpoint("/cats")

        _ = try await Self.get(client, server, "/cats")
        let hit = try await Self.get(client, server, "/cats")
        _ = try await client.request(.post, endpoint, body: .json(["name": "Tom"]), as: Data.self).value
        let afterPost = try await Self.get(client, server, "/cats")

        #expect(hit.cacheStatus == .hit)
        #expect(afterPost.cacheStatus == .network)
        #expect(methods.elements == ["GET", "POST", "GET"])
    }

    @Test("§4 a cached 301 is followed without the network", arguments: TransportUnderTest.allCases)
    func cachedRedirect(_ transport: TransportUnderTest) async throws {
        let paths = Recorder<String>()
        let server = try LoopbackServer { request in
            paths.append(request.path)
            if request.path == "/old" {
                return .redirect(to: "/new", status: 301).addingHeader("Cache-Control", "max-age=3600")
            }
            return .json(#"{"at":"new"}"#).addingHeader("Cache-Control", "max-age=60")
        }
        let client = Self.client(transport, cache: .memory(), clock: ManualClock(now: Self.start))

        _ = try await Self.get(client, server, "/old")
        let again = try await Self.get(client, server, "/old")

        #expect(paths.elements == ["/old", "/new"])
        #expect(again.cacheStatus == .hit)
        #expect(again.url == server.url("/new"))
        #expect(again.metrics?.exchanges.map(\.statusCode) == [301, 200])
    }

    @Test("a directory cache answers a new client in the same directory", arguments: TransportUnderTest.allCases)
    func directorySurvivesNewClient(_ transport: TransportUnderTest) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let served = Counter()
        let server = try Self.freshServer(counting: served)
        let clock = ManualClock(now: Self.start)

        let first = try await Self.get(
            Self.client(transport, cache: try .directory(directory), clock: clock), server, "/cat")
        let later = try await Self.get(
            Self.client(transport, cache: try .directory(directory), clock: clock), server, "/cat")

        #expect(first.cacheStatus == .network)
        #expect(later.cacheStatus == .hit)
        #expect(later.body == first.body)
        #expect(served.value == 1)
    }

    @Test("a corrupt file in a directory cache is ignored and replaced", arguments: TransportUnderTest.allCases)
    func corruptFileIgnored(_ transport: TransportUnderTest) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let served = Counter()
        let server = try Self.freshServer(counting: served)
        let clock = ManualClock(now: Self.start)
        _ = try await Self.get(
            Self.client(transport, cache: try .directory(directory), clock: clock), server, "/cat")
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        #expect(files.count == 1)
        for file in files { try Data("not a cache entry".utf8).write(to: file) }

        let cache = try HTTPCache.directory(directory)
        let again = try await Self.get(Self.client(transport, cache: cache, clock: clock), server, "/cat")
        let fromRepairedFile = try await Self.get(
            Self.client(transport, cache: cache, clock: clock), server, "/cat")

        #expect(again.cacheStatus == .network)
        #expect(fromRepairedFile.cacheStatus == .hit)
        #expect(served.value == 2)
    }

    /// A server whose every answer is fresh for 60 s from the test's start, counting them.
    private static func freshServer(counting served: Counter) throws -> LoopbackServer {
        try LoopbackServer { _ in
            _ = served.increment()
            return .json(#"{"name":"Tom"}"#).addingHeader("Cache-Control", "max-age=60")
                .addingHeader("Date", Self.startHTTPDate)
        }
    }

    private static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("kringle-cache-e2e-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}
