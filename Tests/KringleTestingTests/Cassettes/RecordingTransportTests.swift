import Foundation
import KringleTestSupport
import KringleTesting
import Testing

@Suite("RecordingTransport", .generousTimeLimit)
struct RecordingTransportTests {
    @Test("an entry another writer appends between two exchanges is kept")
    func interleavedWriters() async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("shared.har")
        let stub = StubTransport()
        stub.stub(.get, "/a", with: .json("1"))
        stub.stub(.get, "/b", with: .json("2"))
        let client = NetworkClient(transport: RecordingTransport(recording: stub, to: cassette))
        let endpoint = CassetteEndpoint(baseURL: URL(string: "https://cats.example")!, path: "/a")
        try await client.get(endpoint).value
        let other = HAR.Entry(
            startedDateTime: HAR.string(from: Date(timeIntervalSince1970: 0)), time: 0,
            request: HAR.Request(method: "GET", url: "https://other.example/"), response: HAR.Response(status: 204))
        try HAR.Archive.append([other], to: cassette)
        var second = endpoint
        second.path = "/b"
        try await client.get(second).value

        let urls = try HAR.Archive.read(from: cassette).log.entries.map(\.request.url)
        #expect(urls == ["https://cats.example/a", "https://other.example/", "https://cats.example/b"])
    }

    @Test("without writing each exchange, nothing reaches the file until flush")
    func flushWrites() async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("later.har")
        let stub = StubTransport()
        stub.stub(.get, "/a", with: .json("1"))
        let recorder = RecordingTransport(recording: stub, to: cassette, writesEachExchange: false)
        try await NetworkClient(transport: recorder).get(
            CassetteEndpoint(baseURL: URL(string: "https://cats.example")!, path: "/a")
        ).value
        #expect(!FileManager.default.fileExists(atPath: cassette.path))
        try recorder.flush()
        #expect(try HAR.Archive.read(from: cassette).log.entries == recorder.entries)
        #expect(recorder.entries.count == 1)
    }

    @Test("a cookie's Expires is written in ISO 8601, as HAR 1.2 asks; one no cookie jar reads is kept as sent")
    func cookieExpiresInISO8601() async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var headers = HTTPHeaders()
        headers.add(name: "Set-Cookie", value: "a=1; Expires=Sun, 18-Apr-2027 21:06:29 GMT; Path=/")
        headers.add(name: "Set-Cookie", value: "b=2; Expires=someday")
        let stub = StubTransport()
        stub.stub(.get, "/a", with: StubTransport.Stub(headers: headers))
        let recorder = RecordingTransport(recording: stub, to: folder.appendingPathComponent("cookies.har"))

        try await NetworkClient(transport: recorder).get(
            CassetteEndpoint(baseURL: URL(string: "https://cats.example")!, path: "/a")
        ).value
        let cookies = try #require(recorder.entries.first?.response.cookies)
        #expect(cookies.map(\.name) == ["a", "b"])
        #expect(cookies.first?.expires == "2027-04-18T21:06:29.000Z")
        #expect(cookies.last?.expires == nil)
        #expect(cookies.last?.custom["_expires"] == .string("someday"))
    }

    @Test("a cassette that cannot be written rejects the request, whole or streamed, with KringleError.transport")
    func unwritableCassetteRejectsWithKringleError() async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // A file where the cassette's folder should be: the folder cannot be made.
        let blocker = folder.appendingPathComponent("blocker")
        try Data().write(to: blocker)
        let stub = StubTransport()
        stub.stub(.get, "/cats", with: .json(#"{"name": "Tom", "mood": "purring"}"#))
        let client = NetworkClient(
            transport: RecordingTransport(recording: stub, to: blocker.appendingPathComponent("cats.har")))
        let endpoint = CassetteEndpoint(baseURL: URL(string: "https://cats.example")!, path: "/cats")

        var whole: (any Error)?
        if case .failure(let error) = await client.get(endpoint).outcome() { whole = error }
        var streamed: (any Error)?
        do {
            for try await _ in client.stream(endpoint) {}
        } catch {
            streamed = error
        }
        for error in [whole, streamed] {
            guard case .unwritable? = cassetteError(error) else {
                Issue.record(
                    "expected KringleError.transport(CassetteError.unwritable), got \(String(describing: error))")
                continue
            }
        }
    }
}
