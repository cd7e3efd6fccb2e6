import Foundation
import KringleTesting
import Testing

@Suite("Cassettes from Chrome's exports")
struct ChromeExportTests {
    /// A HAR file as Chrome's developer tools export it (Network panel, "Save all as HAR"):
    /// a fetch that succeeded, and one that failed, with its error in `response._error`.
    static let chromeExport = #"""
        {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
          "pages": [{"startedDateTime": "2024-05-01T10:00:00.000Z", "id": "page_1", "title": "https://cats.example/",
                     "pageTimings": {"onContentLoad": 412.3, "onLoad": 655.1}}],
          "entries": [
            {"_priority": "High", "_resourceType": "fetch", "cache": {}, "connection": "52811", "pageref": "page_1",
             "request": {"method": "GET", "url": "https://cats.example/api/cats", "httpVersion": "http/2.0",
               "headers": [{"name": ":authority", "value": "cats.example"}, {"name": "accept", "value": "application/json"}],
               "queryString": [],
               "cookies": [{"name": "sid", "value": "abc123", "path": "/", "domain": "cats.example",
                            "expires": "2025-05-01T10:00:00.000Z", "httpOnly": true, "secure": true, "sameSite": "Lax"}],
               "headersSize": -1, "bodySize": 0},
             "response": {"status": 200, "statusText": "", "httpVersion": "http/2.0",
               "headers": [{"name": "content-type", "value": "application/json"}], "cookies": [],
               "content": {"size": 15, "mimeType": "application/json", "text": "[\"Tom\",\"Felix\"]"},
               "redirectURL": "", "headersSize": -1, "bodySize": 15,
               "_transferSize": 120, "_error": null, "_fetchedViaServiceWorker": false},
             "serverIPAddress": "203.0.113.7", "startedDateTime": "2024-05-01T10:00:00.421Z", "time": 48.91,
             "timings": {"blocked": 2.11, "dns": -1, "ssl": -1, "connect": -1, "send": 0.09, "wait": 45.6,
                         "receive": 1.11, "_blocked_queueing": 1.05, "_workerStart": -1}},
            {"_priority": "High", "_resourceType": "fetch", "cache": {}, "pageref": "page_1",
             "request": {"method": "GET", "url": "https://cats.example/api/dogs", "httpVersion": "",
               "headers": [{"name": "accept", "value": "application/json"}], "queryString": [], "cookies": [],
               "headersSize": -1, "bodySize": 0},
             "response": {"status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [],
               "content": {"size": 0, "mimeType": "x-unknown"}, "redirectURL": "", "headersSize": -1, "bodySize": -1,
               "_transferSize": 0, "_error": "net::ERR_CONNECTION_REFUSED"},
             "serverIPAddress": "", "startedDateTime": "2024-05-01T10:00:00.500Z", "time": 3.5,
             "timings": {"blocked": 3.5, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 0, "receive": 0,
                         "_blocked_queueing": 3.5}}]}}
        """#

    static func archive(_ text: String = chromeExport) throws -> HAR.Archive {
        try JSONDecoder().decode(HAR.Archive.self, from: Data(text.utf8))
    }

    /// The message of the recorded failure `transport` replays for `url`, or `nil` when it
    /// does not fail with one.
    static func recordedFailure(_ transport: ReplayTransport, _ url: String) async -> String? {
        let outcome = await NetworkClient(transport: transport)
            .get(CassetteEndpoint(baseURL: URL(string: url)!, path: "")).outcome()
        guard case .failure(KringleError.transport(CassetteError.recordedFailure(let message))) = outcome else {
            Issue.record("expected a recorded failure, got \(outcome)")
            return nil
        }
        return message
    }

    @Test("a Chrome export's failed entry replays with its error, read from response._error")
    func chromeErrorInResponseReplays() async throws {
        let replay = ReplayTransport(archive: try Self.archive())
        #expect(await Self.recordedFailure(replay, "https://cats.example/api/dogs") == "net::ERR_CONNECTION_REFUSED")
    }

    @Test("an entry-level _error, as Kringle wrote it before, still replays with its error")
    func entryLevelErrorStillReplays() async throws {
        var archive = try Self.archive()
        archive.log.entries[1].response.custom["_error"] = nil
        archive.log.entries[1].custom["_error"] = .string("Could not connect to server")
        let replay = ReplayTransport(archive: archive)
        #expect(await Self.recordedFailure(replay, "https://cats.example/api/dogs") == "Could not connect to server")
    }

    @Test("a failed exchange is recorded with _error inside response, where Chrome writes it")
    func recordedErrorWrittenInResponse() async throws {
        struct Refused: Error, CustomStringConvertible {
            var description: String { "connection refused" }
        }
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("failed.har")
        let stub = StubTransport()
        stub.stub(.get, "/api/dogs", with: .failure(KringleError.transport(Refused())))
        let recorder = RecordingTransport(recording: stub, to: cassette)
        _ = await NetworkClient(transport: recorder)
            .get(CassetteEndpoint(baseURL: URL(string: "https://cats.example")!, path: "/api/dogs")).outcome()

        let entry = try #require(try HAR.Archive.read(from: cassette).log.entries.first)
        #expect(entry.response.status == 0)
        guard case .string(let error)? = entry.response.custom["_error"] else {
            Issue.record("no response._error in \(entry.response.custom), entry: \(entry.custom)")
            return
        }
        #expect(error.contains("connection refused"))
        #expect(entry.custom["_error"] == nil)
        let replayed = await Self.recordedFailure(
            try ReplayTransport(cassette: cassette), "https://cats.example/api/dogs")
        #expect(replayed == error)
    }

    @Test(
        "a recorded timeout replays as timedOut with its phase, from the response or, as written before, the entry",
        arguments: [true, false])
    func recordedTimeoutReplays(inResponse: Bool) async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("timeout.har")
        let stub = StubTransport()
        stub.stub(.get, "/api/dogs", with: .failure(KringleError.timedOut(.idle)))
        let recorder = RecordingTransport(recording: stub, to: cassette)
        let endpoint = CassetteEndpoint(baseURL: URL(string: "https://cats.example")!, path: "/api/dogs")
        _ = await NetworkClient(transport: recorder).get(endpoint).outcome()
        var archive = try HAR.Archive.read(from: cassette)
        #expect(archive.log.entries[0].response.custom["_kringleTimeoutPhase"] == .string("idle"))
        if !inResponse {
            let fields = archive.log.entries[0].response.custom
            archive.log.entries[0].response.custom = [:]
            archive.log.entries[0].custom = fields
        }

        let outcome = await NetworkClient(transport: ReplayTransport(archive: archive)).get(endpoint).outcome()
        guard case .failure(KringleError.timedOut(let phase)) = outcome else {
            Issue.record("expected timedOut, got \(outcome)")
            return
        }
        #expect(phase == .idle)
    }
}
