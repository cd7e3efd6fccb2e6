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
        guard case .failure(KringleError.transport(let failure as RecordedFailure)) = outcome else {
            Issue.record("expected a recorded failure, got \(outcome)")
            return nil
        }
        return failure.message
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

    /// A HAR file with fields HAR 1.2 does not define, written without the `_` its custom
    /// fields begin with, at every level Kringle reads: Chrome's `sameSite` and `partitionKey`
    /// on cookies, and what other tools add elsewhere.
    static let extendedExport = #"""
        {"exportedAt": "2024-05-01T10:01:00Z",
         "log": {"version": "1.2", "generator": "cats-proxy",
          "creator": {"name": "WebInspector", "version": "537.36", "build": "6367.91"},
          "browser": {"name": "Chrome", "version": "124.0", "channel": "stable"},
          "pages": [{"startedDateTime": "2024-05-01T10:00:00.000Z", "id": "page_1", "title": "Cats", "frameId": "F1",
                     "pageTimings": {"onContentLoad": 412.3, "onLoad": 655.1, "firstPaint": 80}}],
          "entries": [
            {"priority": "VeryHigh", "_resourceType": "fetch", "cache": {"beforeRequest": null}, "pageref": "page_1",
             "request": {"method": "POST", "url": "https://cats.example/login?next=%2Fhome", "httpVersion": "HTTP/1.1",
               "frameId": "F1",
               "headers": [{"name": "content-type", "value": "application/x-www-form-urlencoded", "source": "page"}],
               "queryString": [{"name": "next", "value": "%2Fhome", "decoded": "/home"}],
               "cookies": [{"name": "sid", "value": "abc123", "path": "/", "domain": "cats.example",
                            "expires": "2025-05-01T10:00:00.000Z", "httpOnly": true, "secure": true,
                            "sameSite": "Lax", "partitionKey": "https://cats.example"}],
               "postData": {"mimeType": "application/x-www-form-urlencoded", "charset": "utf-8",
                            "params": [{"name": "name", "value": "Tom", "encoding": "plain"}]},
               "headersSize": -1, "bodySize": 8},
             "response": {"status": 303, "statusText": "See Other", "httpVersion": "HTTP/1.1", "transferSize": 210,
               "headers": [{"name": "location", "value": "/home", "source": "network"}],
               "cookies": [{"name": "seen", "value": "1", "sameSite": "Strict"}],
               "content": {"size": 0, "mimeType": "text/html", "sha256": "e3b0c442"},
               "redirectURL": "/home", "headersSize": -1, "bodySize": 0, "_error": null},
             "serverIPAddress": "203.0.113.7", "startedDateTime": "2024-05-01T10:00:00.421Z", "time": 48.91,
             "timings": {"blocked": 2.11, "dns": -1, "ssl": -1, "connect": -1, "send": 0.09, "wait": 45.6,
                         "receive": 1.11, "queueing": 1.05}}]}}
        """#

    /// Whether `value` holds everything `original` does: every member of every object, at
    /// any depth, with the same value; arrays element by element.
    static func keeps(_ original: HARValue, in value: HARValue, at path: String = "") -> [String] {
        switch (original, value) {
        case (.object(let originalMembers), .object(let members)):
            return originalMembers.sorted { $0.key < $1.key }.flatMap { name, member in
                guard let kept = members[name] else { return ["\(path).\(name) is gone"] }
                return keeps(member, in: kept, at: "\(path).\(name)")
            }
        case (.array(let originalElements), .array(let elements)):
            guard originalElements.count <= elements.count else { return ["\(path) lost elements"] }
            return zip(originalElements, elements).enumerated().flatMap { index, pair in
                keeps(pair.0, in: pair.1, at: "\(path)[\(index)]")
            }
        default:
            return original == value ? [] : ["\(path) was \(original), is \(value)"]
        }
    }

    @Test("appending to an export keeps the fields Kringle does not model, at every level")
    func appendingKeepsUnknownFields() async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let cassette = folder.appendingPathComponent("export.har")
        try Data(Self.extendedExport.utf8).write(to: cassette)
        let stub = StubTransport()
        stub.stub(.get, "/home", with: .json(#"{"name": "Tom"}"#))
        let recorder = RecordingTransport(recording: stub, to: cassette)
        _ = try await NetworkClient(transport: recorder)
            .get(CassetteEndpoint(baseURL: URL(string: "https://cats.example")!, path: "/home")).value

        let written = try Data(contentsOf: cassette)
        let original = try JSONDecoder().decode(HARValue.self, from: Data(Self.extendedExport.utf8))
        let rewritten = try JSONDecoder().decode(HARValue.self, from: written)
        #expect(Self.keeps(original, in: rewritten) == [])
        let archive = try HAR.Archive.read(from: cassette)
        #expect(archive.log.entries.count == 2)
        #expect(archive.log.entries[0].request.cookies[0].custom["sameSite"] == .string("Lax"))
        #expect(archive.log.entries[1].request.url == "https://cats.example/home")
        // Chrome's own export keeps its cookies' `sameSite` too.
        let chrome = try Self.archive()
        #expect(chrome.log.entries[0].request.cookies[0].custom["sameSite"] == .string("Lax"))
        #expect(try Self.archive(String(decoding: chrome.encoded(), as: UTF8.self)) == chrome)
    }
}
