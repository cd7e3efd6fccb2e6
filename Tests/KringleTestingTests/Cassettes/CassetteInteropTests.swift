import ChildProcess
import Foundation
import KringleTestSupport
import KringleTesting
import Testing

@Suite("Cassettes and other HAR tools", .generousTimeLimit)
struct CassetteInteropTests {
    /// Loads a HAR file with `haralyzer` (PyPI), a reader no one here wrote, and prints what
    /// it sees of each entry as JSON.
    private static let haralyzerScript = #"""
        import json, sys
        from haralyzer import HarParser
        parser = HarParser.from_file(sys.argv[1])
        entries = [entry for page in parser.pages for entry in page.entries]
        print(json.dumps({
            "version": parser.version,
            "creator": parser.creator,
            "entries": [{
                "method": e.request.method, "url": e.request.url, "status": e.response.status,
                "text": e.response.text, "mimeType": e.response.mimeType, "start": e.startTime.isoformat(),
                "time": e.time, "server": e.serverAddress,
                "requestHeaders": len(e.request.headers), "responseHeaders": len(e.response.headers),
            } for e in entries],
        }))
        """#

    private struct Seen: Decodable {
        struct Entry: Decodable {
            var method: String
            var url: String
            var status: Int
            var text: String?
            var mimeType: String
            var start: String
            var time: Double
            var server: String?
            var requestHeaders: Int
            var responseHeaders: Int
        }
        var version: String
        var entries: [Entry]
    }

    @Test("haralyzer loads a cassette we recorded, every entry intact", .requires(.haralyzer))
    func haralyzerReadsOurCassette() async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("interop.har")
        let server = try LoopbackServer { request in
            switch request.path {
            case "/cats": return .json(#"[{"name": "Tom", "mood": "purring"}]"#)
            case "/photo": return .data(Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2, 255]), contentType: "image/png")
            case "/feed": return .json(request.bodyText, status: 201)
            case "/events":
                return LoopbackServer.Response(
                    status: 200, headers: [("Content-Type", "text/event-stream")],
                    body: Data("data: first\n\ndata: second\n\n".utf8))
            default: return .json(#"{"error": "no such cat"}"#, status: 404)
            }
        }
        defer { server.shutdown() }
        let client = NetworkClient(
            transport: RecordingTransport(recording: NetworkClient.makeDefaultTransport(), to: cassette))
        _ = try await client.get(server.endpoint("/cats", query: [URLQueryItem(name: "page", value: "1")])).value
        _ = try await client.request(.get, server.endpoint("/photo"), as: Data.self).value
        _ = try await client.post(CassetteCat(name: "Kitty", mood: "new"), to: server.endpoint("/feed")).value
        _ = await client.get(server.endpoint("/nobody")).outcome()
        // A stream, recorded with its chunks in `_kringleChunks`.
        for try await _ in client.stream(server.endpoint("/events")) {}

        let python = try TestTool.haralyzer.path()
        let run = try await onOwnThread {
            try ChildProcess.run(python, ["-c", Self.haralyzerScript, cassette.path], includingStandardError: true)
        }
        try #require(
            run.status == 0, "haralyzer failed:\n\(run.text)")
        let seen = try JSONDecoder().decode(Seen.self, from: run.output)
        let ours = try HAR.Archive.read(from: cassette).log.entries
        #expect(seen.version == "1.2")
        try #require(seen.entries.count == ours.count)
        #expect(ours.count == 5)
        #expect(ours.last?.response.content.custom["_kringleChunks"] != nil)
        for (theirs, mine) in zip(seen.entries, ours) {
            #expect(theirs.method == mine.request.method)
            #expect(theirs.url == mine.request.url)
            #expect(theirs.status == mine.response.status)
            #expect(theirs.text == mine.response.content.text)
            #expect(theirs.mimeType == mine.response.content.mimeType)
            #expect(theirs.time == mine.time)
            #expect(theirs.server == "127.0.0.1")
            #expect(theirs.requestHeaders == mine.request.headers.count)
            #expect(theirs.responseHeaders == mine.response.headers.count)
            #expect(HAR.date(from: theirs.start) == mine.startedDate)
        }
    }

    @Test("a browser's export replays: pages, custom fields, form params, compressed content")
    func browserExportReplays() async throws {
        // Found beside this file: the fixtures are not resources (Package.swift excludes them).
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/browser-export.har")
        let archive = try HAR.Archive.read(from: fixture)
        #expect(archive.log.pages?.first?.id == "page_1")
        #expect(archive.log.entries[0].custom["_priority"] == .string("High"))
        #expect(archive.log.entries[0].response.content.compression == 18)
        #expect(archive.log.entries[0].timings.custom["_blocked_queueing"] == .number(1.05))

        // What Kringle writes back keeps the browser's custom fields.
        let rewritten = try JSONDecoder().decode(HAR.Archive.self, from: try archive.encoded())
        #expect(rewritten == archive)

        let replay = try ReplayTransport(cassette: fixture, matching: CassetteMatching(body: true))
        let client = NetworkClient(transport: replay)
        let base = URL(string: "https://cats.example")!
        let cats = try await client.get(
            CassetteEndpoint(
                baseURL: base, path: "/api/cats",
                queryItems: [URLQueryItem(name: "page", value: "1"), URLQueryItem(name: "sort", value: "name")]),
            as: [CassetteCat].self
        ).value
        #expect(cats.map(\.name) == ["Felix", "Tom"])

        // The form post, matched on its body, is redirected (303) to /home with the cookie it set.
        let home = try await client.request(
            .post, CassetteEndpoint(baseURL: base, path: "/login"),
            body: .form([("name", "Tom"), ("remember", "on"), ("x", "1+1")]), as: Data.self
        ).value
        #expect(home.value == Data(base64Encoded: "iVBORw0KGgo="))
        #expect(home.url == URL(string: "https://cats.example/home"))
        #expect(client.configuration.cookieJar?.cookies(for: base).map(\.value) == ["abc123"])
        #expect(replay.unusedEntries.isEmpty)
    }
}
