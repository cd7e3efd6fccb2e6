import Foundation
import KringleTestSupport
import KringleTesting
import Testing

@Suite("Cassette streams: replay", .generousTimeLimit)
struct CassetteStreamReplayTests {
    private static let url = "https://cats.example/events"
    private static let endpoint = CassetteEndpoint(baseURL: URL(string: "https://cats.example")!, path: "/events")

    /// A cassette of one GET of ``url`` answered with `body`, its chunks recorded at
    /// `chunks` (size, milliseconds) when given.
    private static func archive(
        _ body: String, mimeType: String = "text/event-stream", chunks: [(size: Int, time: Double)]? = nil
    ) -> HAR.Archive {
        var content = HAR.Content(body: Data(body.utf8), mimeType: mimeType)
        if let chunks {
            content.custom["_kringleChunks"] = .array(
                chunks.map { .object(["size": .number(Double($0.size)), "time": .number($0.time)]) })
        }
        let entry = HAR.Entry(
            startedDateTime: "2024-05-01T10:00:00.000Z", time: 1, request: HAR.Request(method: "GET", url: url),
            response: HAR.Response(
                status: 200, headers: [HAR.NameValue(name: "Content-Type", value: mimeType)], content: content))
        return HAR.Archive(log: HAR.Log(entries: [entry]))
    }

    /// The chunks `transport` streams for ``endpoint``, as text.
    private static func chunks(_ transport: ReplayTransport) async throws -> [String] {
        var chunks: [String] = []
        for try await chunk in NetworkClient(transport: transport).stream(endpoint) {
            chunks.append(String(decoding: chunk, as: UTF8.self))
        }
        return chunks
    }

    @Test("a replayed stream is held to maximumDownloadBytes, as a live one is; an empty recorded chunk is skipped")
    func downloadLimit() async throws {
        let archive = Self.archive(
            "0123456789abcdefghij", mimeType: "text/plain", chunks: [(8, 1), (0, 2), (6, 3), (6, 4)])
        var configuration = NetworkClient.Configuration()
        configuration.responseLimits.maximumDownloadBytes = 15
        let client = NetworkClient(configuration: configuration, transport: ReplayTransport(archive: archive))
        var chunks: [String] = []
        var failure: (any Error)?
        do {
            for try await chunk in client.stream(Self.endpoint) {
                chunks.append(String(decoding: chunk, as: UTF8.self))
            }
        } catch {
            failure = error
        }

        #expect(chunks == ["01234567", "89abcd"])
        guard case KringleError.responseTooLarge(_, .downloadBytes(15))? = failure else {
            Issue.record("expected responseTooLarge, got \(String(describing: failure))")
            return
        }
        // Within the bound, every chunk, the empty one skipped.
        #expect(try await Self.chunks(ReplayTransport(archive: archive)) == ["01234567", "89abcd", "efghij"])
    }

    @Test("recorded pacing: each event waits for its recorded time on the transport's clock")
    func recordedPacing() async throws {
        let clock = ManualClock()
        let replay = ReplayTransport(
            archive: Self.archive("data: one\n\ndata: two\n\n", chunks: [(11, 1000), (11, 3000)]), pacing: .recorded,
            clock: clock)
        let (events, delivered) = AsyncStream.makeStream(of: ServerSentEvent.self)
        let reading = Task {
            for try await event in NetworkClient(transport: replay).events(Self.endpoint) { delivered.yield(event) }
        }
        defer { reading.cancel() }
        var received = events.makeAsyncIterator()

        // The head came at once; the first event is due 1 s after the request.
        await clock.untilTimersPending(1)
        #expect(clock.pendingDelays == [1])
        clock.advance(by: 0.999)
        #expect(clock.pendingTimers == 1)  // not offered yet: nothing for the reader
        clock.advance(by: 0.001)
        #expect(await received.next()?.data == "one")

        // The second, 2 s later, as recorded.
        await clock.untilTimersPending(1)
        #expect(clock.pendingDelays == [2])
        clock.advance(by: 1.5)
        #expect(clock.pendingTimers == 1)
        clock.advance(by: 0.5)
        #expect(await received.next()?.data == "two")
    }

    @Test("immediate pacing (the default) delivers the recorded chunks without waiting, one by one")
    func immediatePacing() async throws {
        let clock = ManualClock()
        let replay = ReplayTransport(
            archive: Self.archive("data: one\n\ndata: two\n\n", chunks: [(11, 1000), (11, 3000)]), clock: clock)
        #expect(try await Self.chunks(replay) == ["data: one\n\n", "data: two\n\n"])
        #expect(clock.pendingTimers == 0)
    }

    @Test("a paced replay the reader leaves stops: no timer is left")
    func leavingStopsThePacing() async throws {
        let clock = ManualClock()
        let replay = ReplayTransport(
            archive: Self.archive("data: one\n\ndata: two\n\n", chunks: [(11, 0), (11, 60_000)]), pacing: .recorded,
            clock: clock)
        let stream = NetworkClient(transport: replay).stream(Self.endpoint)
        var chunks = stream.makeAsyncIterator()
        #expect(try await chunks.next() == Data("data: one\n\n".utf8))
        await clock.untilTimersPending(1)
        stream.cancel()
        #expect(clock.pendingTimers == 0)
    }

    @Test(
        "without recorded chunks an event stream is cut after each event, anything else in 16 KiB pieces",
        arguments: [
            // LF, CRLF and CR line endings (WHATWG HTML §9.2.5); a trailing partial event is
            // a piece of its own.
            ("text/event-stream", "data: a\n\ndata: b\r\n\r\nid: 3\rdata: c\r\rdata: cut", 1, [9, 11, 15, 9]),
            ("text/event-stream; charset=utf-8", ": comment\n\n", 1, [11]),
            ("application/octet-stream", "x", 40_000, [16_384, 16_384, 7_232]),
            // Chunks that do not add up to the body (a redaction hook changed it) are ignored.
            ("text/plain", "short", 1, [5]),
        ])
    func piecesWithoutRecordedChunks(mimeType: String, text: String, repeated: Int, sizes: [Int]) async throws {
        let body = String(repeating: text, count: repeated)
        var archive = Self.archive(body, mimeType: mimeType)
        if mimeType == "text/plain" {
            archive.log.entries[0].response.content.custom["_kringleChunks"] = .array([
                .object(["size": .number(2), "time": .number(0)]), .object(["size": .number(9), "time": .number(1)]),
            ])
        }
        let chunks = try await Self.chunks(ReplayTransport(archive: archive))
        #expect(chunks.map(\.utf8.count) == sizes)
        #expect(chunks.joined() == body)
    }

    @Test("a stream recorded as broken replays its chunks, then the recorded failure")
    func brokenStream() async throws {
        var archive = Self.archive("data: one\n\n", chunks: [(11, 0)])
        archive.log.entries[0].response.content.custom["_kringleStreamEnd"] = .string("failed")
        archive.log.entries[0].response.content.custom["_kringleStreamError"] = .string("the connection was reset")
        var received = Data()
        do {
            for try await chunk in NetworkClient(transport: ReplayTransport(archive: archive)).stream(Self.endpoint) {
                received.append(chunk)
            }
            Issue.record("the stream ended without its recorded failure")
        } catch KringleError.transport(let failure as RecordedFailure) {
            #expect(failure.message == "the connection was reset")
        }
        #expect(received == Data("data: one\n\n".utf8))
    }

    @Test("a replayed response's metrics say it was replayed; a live one's do not")
    func metricsMarkedReplayed() async throws {
        let server = try LoopbackServer { _ in .json(#"{"name": "Tom", "mood": "purring"}"#) }
        defer { server.shutdown() }
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("metrics.har")
        let recorder = RecordingTransport(recording: NetworkClient.makeDefaultTransport(), to: cassette)
        let live = try await NetworkClient(transport: recorder)
            .request(.get, server.endpoint("/cat"), as: CassetteCat.self).value
        #expect(live.metrics?.exchanges.last?.metrics?.isReplayed == false)

        let replayed = try await NetworkClient(transport: try ReplayTransport(cassette: cassette))
            .request(.get, server.endpoint("/cat"), as: CassetteCat.self).value
        #expect(replayed.value == live.value)
        let metrics = try #require(replayed.metrics?.exchanges.last?.metrics)
        #expect(metrics.isReplayed)
        #expect(metrics.httpVersion == live.metrics?.exchanges.last?.metrics?.httpVersion)

        // A stream's head says so too.
        let stream = NetworkClient(transport: ReplayTransport(archive: Self.archive("data: one\n\n")))
            .stream(Self.endpoint)
        #expect(try await stream.response.metrics?.exchanges.last?.metrics?.isReplayed == true)
        stream.cancel()
    }

    @Test("an upload from a file replays, matched by its body; a download is written to its file")
    func uploadAndDownload() async throws {
        let server = try LoopbackServer { request in
            request.path == "/upload"
                ? .json(#"{"name": "\#(request.body.count) bytes", "mood": "stored"}"#)
                : .data(Data(repeating: 7, count: 50_000))
        }
        defer { server.shutdown() }
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let upload = folder.appendingPathComponent("upload.bin")
        try Data(repeating: 1, count: 30_000).write(to: upload)
        let cassette = folder.appendingPathComponent("transfers.har")
        let recorder = RecordingTransport(recording: NetworkClient.makeDefaultTransport(), to: cassette)
        let live = try await NetworkClient(transport: recorder)
            .upload(upload, to: server.endpoint("/upload"), as: CassetteCat.self).value
        #expect(live.name == "30000 bytes")
        let liveFile = try await NetworkClient(transport: recorder)
            .download(server.endpoint("/file"), to: folder.appendingPathComponent("live.bin")).value.value
        server.shutdown()

        var matching = CassetteMatching.default
        matching.body = true
        // Repeatable, so that the changed file below fails on its body, not on an entry used.
        matching.reuse = .repeatable
        let replay = try ReplayTransport(cassette: cassette, matching: matching)
        let client = NetworkClient(transport: replay)
        let replayed = try await client.upload(upload, to: server.endpoint("/upload"), as: CassetteCat.self).value
        #expect(replayed == live)
        let replayedFile = try await client.download(
            server.endpoint("/file"), to: folder.appendingPathComponent("replayed.bin")
        ).value.value
        #expect(try Data(contentsOf: replayedFile) == Data(contentsOf: liveFile))
        #expect(try Data(contentsOf: replayedFile).count == 50_000)
        #expect(try await client.upload(upload, to: server.endpoint("/upload"), as: CassetteCat.self).value == live)
        try Data(repeating: 2, count: 30_000).write(to: upload)
        let error = await #expect(throws: KringleError.self) {
            try await client.upload(upload, to: server.endpoint("/upload"), as: CassetteCat.self).value
        }
        guard case .unmatchedRequest(let mismatch)? = cassetteError(error) else {
            Issue.record("expected unmatchedRequest, got \(String(describing: error))")
            return
        }
        let reasons = mismatch.nearest.first { $0.url.hasSuffix("/upload") }?.reasons ?? []
        #expect(reasons == ["body differs (30000 bytes recorded, 30000 sent)"])
    }

    /// A transport that counts the requests it passes on to a replay.
    private struct Counting: Transport {
        let replay: ReplayTransport
        let requests: Counter

        func send(_ request: ValidatedRequest) -> Promise<HTTPResponse> {
            requests.increment()
            return replay.send(request)
        }

        func transfer(_ transfer: TransferRequest) -> Promise<HTTPResponse> {
            requests.increment()
            return replay.transfer(transfer)
        }
    }

    @Test("an event stream replayed past its last entry ends with the unmatched request, reconnecting once only")
    func eventStreamEndsWhenTheCassetteRunsOut() async throws {
        let requests = Counter()
        let transport = Counting(replay: ReplayTransport(archive: Self.archive("data: one\n\n")), requests: requests)
        var reconnection = EventStream.Reconnection()
        reconnection.delay = 0
        var events: [String] = []
        var failure: (any Error)?
        do {
            for try await event in NetworkClient(transport: transport).events(Self.endpoint, reconnection: reconnection)
            {
                events.append(event.data)
            }
        } catch {
            failure = error
        }
        #expect(events == ["one"])
        guard case .unmatchedRequest? = cassetteError(failure) else {
            Issue.record(
                "expected KringleError.transport(CassetteError.unmatchedRequest), got \(String(describing: failure))")
            return
        }
        // The recorded connection, then one reconnection the cassette has no entry for, refused
        // for good: not `maximumAttempts` more of them.
        #expect(requests.value == 2)
    }

    @Test("a replayed event stream that broke reconnects to the cassette's next entry, as it did when recorded")
    func brokenEventStreamReconnects() async throws {
        var archive = Self.archive("data: one\n\n", chunks: [(11, 0)])
        archive.log.entries[0].response.content.custom["_kringleStreamEnd"] = .string("failed")
        archive.log.entries[0].response.content.custom["_kringleStreamError"] = .string("the connection was reset")
        archive.log.entries += Self.archive("data: two\n\n").log.entries
        let replay = ReplayTransport(archive: archive)
        var reconnection = EventStream.Reconnection()
        reconnection.delay = 0
        var events: [String] = []
        for try await event in NetworkClient(transport: replay).events(Self.endpoint, reconnection: reconnection) {
            events.append(event.data)
            if events.count == 2 { break }
        }
        #expect(events == ["one", "two"])
        #expect(replay.unusedEntries.isEmpty)
    }
}
