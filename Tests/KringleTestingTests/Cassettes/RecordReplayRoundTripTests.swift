import Foundation
import KringleTestSupport
import KringleTesting
import Testing

/// A session against a stand-in API: what every call returned, to compare live and replayed.
private struct SessionOutcome: Equatable {
    var cats: [CassetteCat]
    var secondPage: [CassetteCat]
    var created: CassetteCat
    var redirected: CassetteCat
    var retried: CassetteCat
    var notFoundStatus: Int?
    var notFoundBody: String?
    var me: String
    var cookieNames: [String]
    var downloaded: Data
    var events: [String]
}

@Suite("Record and replay round trip", .generousTimeLimit)
struct RecordReplayRoundTripTests {
    /// The stand-in API: JSON GETs, a POST, a redirect, a 503 then a 200 (the client
    /// retries), a 404 with a body, a cookie, a download, a Server-Sent Events stream.
    private static func makeServer() throws -> LoopbackServer {
        let flakyCalls = Counter()
        return try LoopbackServer { request in
            switch (request.method, request.path) {
            case ("GET", "/flaky"):
                // Retry-After: 0 makes the client's retry immediate: nothing waits in the test.
                return flakyCalls.increment() == 1
                    ? .status(503).addingHeader("Retry-After", "0") : .json(#"{"name": "Tom", "mood": "patient"}"#)
            case ("GET", "/cats") where request.queryItems.contains(URLQueryItem(name: "page", value: "2")):
                return .json(#"[{"name": "Felix", "mood": "sleepy"}]"#)
            case ("GET", "/cats"):
                return .json(#"[{"name": "Tom", "mood": "purring"}]"#)
            case ("POST", "/cats"):
                return .json(request.bodyText, status: 201)
            case ("GET", "/old-tom"):
                return .redirect(to: "/cats/Tom")
            case ("GET", "/cats/Tom"):
                return .json(#"{"name": "Tom", "mood": "redirected"}"#)
            case ("GET", "/login"):
                return .text("welcome").addingHeader("Set-Cookie", "sid=s3cret-session; Path=/; HttpOnly")
            case ("GET", "/me"):
                return .text(request.header("Cookie") == "sid=s3cret-session" ? "Tom" : "stranger")
            case ("GET", "/photo"):
                return .data(Data((0..<1000).map { UInt8($0 % 256) }), contentType: "image/jpeg")
            case ("GET", "/events"):
                return LoopbackServer.Response(
                    status: 200, headers: [("Content-Type", "text/event-stream")],
                    body: Data("data: first\n\nevent: mood\ndata: purring\n\n".utf8))
            default:
                return .json(#"{"error": "no such cat"}"#, status: 404)
            }
        }
    }

    /// Every call of the session, through `client`, against `server`'s URLs.
    private static func runSession(_ client: NetworkClient, _ server: LoopbackServer, folder: URL) async throws
        -> SessionOutcome
    {
        let cats = try await client.get(server.endpoint("/cats"), as: [CassetteCat].self).value
        let secondPage = try await client.get(
            server.endpoint("/cats", query: [URLQueryItem(name: "page", value: "2")]), as: [CassetteCat].self
        ).value
        let created = try await client.post(
            CassetteCat(name: "Kitty", mood: "new"), to: server.endpoint("/cats"), as: CassetteCat.self
        ).value
        let redirected = try await client.get(server.endpoint("/old-tom"), as: CassetteCat.self).value
        let retried = try await client.get(server.endpoint("/flaky"), as: CassetteCat.self).value
        var notFoundStatus: Int?
        var notFoundBody: String?
        do {
            _ = try await client.get(server.endpoint("/cats/Nobody"), as: CassetteCat.self).value
        } catch KringleError.unacceptableStatusCode(let status, let response) {
            notFoundStatus = status
            notFoundBody = String(decoding: response.body, as: UTF8.self)
        }
        try await client.get(server.endpoint("/login")).value
        let me = try await client.request(.get, server.endpoint("/me"), as: Data.self).value
        let cookieNames = client.configuration.cookieJar?.cookies(for: server.url("/me")).map(\.name) ?? []
        let file = folder.appendingPathComponent("photo-\(UUID().uuidString).jpg")
        let downloaded = try await client.download(server.endpoint("/photo"), to: file).value
        var events: [String] = []
        for try await event in client.events(server.endpoint("/events")) {
            events.append("\(event.event):\(event.data)")
            if events.count == 2 { break }
        }
        return SessionOutcome(
            cats: cats, secondPage: secondPage, created: created, redirected: redirected, retried: retried,
            notFoundStatus: notFoundStatus, notFoundBody: notFoundBody, me: String(decoding: me.value, as: UTF8.self),
            cookieNames: cookieNames, downloaded: try Data(contentsOf: downloaded.value), events: events)
    }

    @Test("a session recorded against a LoopbackServer replays with the server gone: same values and errors")
    func roundTrip() async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("session.har")
        let server = try Self.makeServer()
        let recorder = RecordingTransport(recording: NetworkClient.makeDefaultTransport(), to: cassette)
        var configuration = NetworkClient.Configuration()
        configuration.interceptors = [RetryPolicy()]
        let live = try await Self.runSession(
            NetworkClient(configuration: configuration, transport: recorder), server, folder: folder)
        server.shutdown()
        let requestsWhileRecording = server.statistics.requestsReceived

        #expect(live.cats == [CassetteCat(name: "Tom", mood: "purring")])
        #expect(live.notFoundStatus == 404)
        #expect(live.me == "Tom")
        #expect(live.events == ["message:first", "mood:purring"])
        // Each hop of the redirect is an entry of its own.
        let archive = try HAR.Archive.read(from: cassette)
        #expect(archive.log.entries.count == requestsWhileRecording)
        #expect(archive.log.entries.contains { $0.response.status == 302 && $0.response.redirectURL == "/cats/Tom" })
        // And so is each attempt of a retried call.
        #expect(archive.log.entries.filter { $0.request.url.hasSuffix("/flaky") }.map(\.response.status) == [503, 200])
        #expect(live.retried.mood == "patient")

        let replay = try ReplayTransport(cassette: cassette)
        let replayed = try await Self.runSession(
            NetworkClient(configuration: configuration, transport: replay), server, folder: folder)
        #expect(replayed == live)
        #expect(replay.replayedCount == requestsWhileRecording)
        #expect(replay.unusedEntries.isEmpty)
        #expect(server.statistics.requestsReceived == requestsWhileRecording)
    }
}
