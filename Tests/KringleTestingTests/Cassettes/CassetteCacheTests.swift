import Foundation
import KringleTestSupport
import KringleTesting
import Testing

/// The client's HTTP cache on a replayed session: a revalidation recorded live (a
/// conditional GET answered 304) replays, and the cache answers from what it stored.
@Suite("Cassettes and the HTTP cache", .generousTimeLimit)
struct CassetteCacheTests {
    /// The time the session starts at on the client's clock, and the `Date` the server sends.
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// A client with a cache, on `clock`.
    private static func client(_ transport: any Transport, _ clock: ManualClock) -> NetworkClient {
        var configuration = NetworkClient.Configuration()
        configuration.cache = .memory()
        configuration.clock = clock
        return NetworkClient(configuration: configuration, transport: transport)
    }

    /// GETs a document three times: stored, then stale and revalidated (a 304), then fresh.
    private static func session(_ client: NetworkClient, _ clock: ManualClock, _ url: URL) async throws -> [Response<
        Data
    >] {
        let endpoint = CassetteEndpoint(baseURL: url, path: "/doc")
        var responses = [try await client.request(.get, endpoint, as: Data.self).valueWithin()]
        clock.advance(by: 20)  // stale: max-age is 10
        responses.append(try await client.request(.get, endpoint, as: Data.self).valueWithin())
        responses.append(try await client.request(.get, endpoint, as: Data.self).valueWithin())
        return responses
    }

    @Test("RFC 9111 §4.3: a recorded 304 replays, and the cache answers with the body it stored")
    func revalidationReplays() async throws {
        let served = Counter()
        let server = try LoopbackServer { request in
            _ = served.increment()
            guard request.header("If-None-Match") == #""v1""# else {
                return .json(#"{"version":1}"#).addingHeader("Cache-Control", "max-age=10")
                    .addingHeader("ETag", #""v1""#).addingHeader("Date", "Tue, 14 Nov 2023 22:13:20 GMT")
            }
            return LoopbackServer.Response(
                status: 304,
                headers: [
                    ("Cache-Control", "max-age=10"), ("ETag", #""v1""#), ("Date", "Tue, 14 Nov 2023 22:13:40 GMT"),
                ], body: Data())
        }
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("revalidation.har")
        let clock = ManualClock(now: Self.start)
        let recorder = RecordingTransport(recording: NetworkClient.makeDefaultTransport(), to: cassette)
        let live = try await Self.session(
            Self.client(recorder, clock), clock, server.baseURL)
        server.shutdown()
        #expect(served.value == 2)
        #expect(recorder.entries.map(\.response.status) == [200, 304])

        // The 304 answers only the conditional request: its If-None-Match must match too.
        let replay = try ReplayTransport(cassette: cassette, matching: CassetteMatching(headers: ["If-None-Match"]))
        let replayClock = ManualClock(now: Self.start)
        let replayed = try await Self.session(
            Self.client(replay, replayClock), replayClock, server.baseURL)

        #expect(replayed.map(\.cacheStatus) == [.network, .revalidated, .hit])
        #expect(replayed.map(\.cacheStatus) == live.map(\.cacheStatus))
        #expect(replayed.map(\.body) == live.map(\.body))
        #expect(replayed[1].statusCode == 200)
        #expect(String(decoding: replayed[1].body, as: UTF8.self) == #"{"version":1}"#)
        #expect(replay.replayedCount == 2)
        #expect(served.value == 2)
    }
}
