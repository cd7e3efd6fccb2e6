import Foundation
import KringleTesting
import Testing

@Suite("Cassette streams: recording")
struct CassetteStreamRecordingTests {
    private static let firstEvent = "data: one\n\n"
    private static let lastEvent = "event: mood\ndata: purring\n\n"

    /// A server whose `/events` sends the first event, then waits for `gate` before the last
    /// (or, without a gate, never sends it: a stream that does not end).
    private static func eventServer(releasingLastOn gate: LoopbackServer.Gate?) throws -> LoopbackServer {
        try LoopbackServer { _ in
            LoopbackServer.Response(
                status: 200, headers: [("Content-Type", "text/event-stream")],
                body: Data((firstEvent + lastEvent).utf8)
            ).withBehavior(
                .paced(
                    [.init(bytes: firstEvent.utf8.count, then: gate.map { .until($0) } ?? .none)],
                    afterLast: gate == nil ? .holdUntilHangUp : .sendRest))
        }
    }

    /// Reads `stream` until `count` bytes have arrived (or it ends).
    private static func read(_ chunks: inout ResponseStream.AsyncIterator, bytes count: Int) async throws -> Data {
        var data = Data()
        while data.count < count, let chunk = try await chunks.next() { data.append(chunk) }
        return data
    }

    @Test("a stream reaches the reader chunk by chunk while it is recorded, and replays as events in its chunks")
    func readerSeesEachChunkWhileRecording() async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("events.har")
        let lastReleased = LoopbackServer.Gate()
        let server = try Self.eventServer(releasingLastOn: lastReleased)
        defer { server.shutdown() }
        let recorder = RecordingTransport(recording: NetworkClient.makeDefaultTransport(), to: cassette)
        let stream = NetworkClient(transport: recorder).stream(server.endpoint("/events"))
        var chunks = stream.makeAsyncIterator()

        // The server holds the last event back until the gate opens: the first has to come
        // through the recorder on its own.
        let first = try await Self.read(&chunks, bytes: Self.firstEvent.utf8.count)
        #expect(String(decoding: first, as: UTF8.self) == Self.firstEvent)
        #expect(recorder.entries.isEmpty)
        lastReleased.open()
        let rest = try await Self.read(&chunks, bytes: .max)
        #expect(String(decoding: rest, as: UTF8.self) == Self.lastEvent)

        // The end reaches the reader once the entry is in the cassette.
        let entry = try #require(try HAR.Archive.read(from: cassette).log.entries.first)
        #expect(entry.response.content.text == Self.firstEvent + Self.lastEvent)
        #expect(entry.response.content.custom["_kringleStreamEnd"] == nil)
        guard case .array(let recordedChunks)? = entry.response.content.custom["_kringleChunks"] else {
            Issue.record("no _kringleChunks in \(entry.response.content.custom)")
            return
        }
        let sizes = recordedChunks.compactMap { chunk -> Int? in
            guard case .object(let fields) = chunk, case .number(let size)? = fields["size"] else { return nil }
            return Int(size)
        }
        let times = recordedChunks.compactMap { chunk -> Double? in
            guard case .object(let fields) = chunk, case .number(let time)? = fields["time"] else { return nil }
            return time
        }
        #expect(sizes.count >= 2)
        #expect(sizes.reduce(0, +) == (Self.firstEvent + Self.lastEvent).utf8.count)
        #expect(times.count == sizes.count && times == times.sorted() && times.allSatisfy { $0 >= 0 })

        // Replayed through the event-stream API: the same events.
        let replay = try ReplayTransport(cassette: cassette)
        var events: [String] = []
        for try await event in NetworkClient(transport: replay).events(server.endpoint("/events")) {
            events.append("\(event.event):\(event.data)")
            if events.count == 2 { break }
        }
        #expect(events == ["message:one", "mood:purring"])
        // And as chunks: the recorded ones.
        let again = try ReplayTransport(cassette: cassette)
        var replayedSizes: [Int] = []
        for try await chunk in NetworkClient(transport: again).stream(server.endpoint("/events")) {
            replayedSizes.append(chunk.count)
        }
        #expect(replayedSizes == sizes)
        #expect(server.statistics.requestsReceived == 1)
    }

    @Test("a stream the reader leaves is recorded up to there, marked cancelled, and replays as a body that ends there")
    func endlessStreamRecordedUntilTheReaderLeaves() async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("endless.har")
        let server = try Self.eventServer(releasingLastOn: nil)
        defer { server.shutdown() }
        let recorder = RecordingTransport(recording: NetworkClient.makeDefaultTransport(), to: cassette)
        let stream = NetworkClient(transport: recorder).stream(server.endpoint("/events"))
        var chunks = stream.makeAsyncIterator()
        let first = try await Self.read(&chunks, bytes: Self.firstEvent.utf8.count)
        #expect(String(decoding: first, as: UTF8.self) == Self.firstEvent)
        #expect(recorder.entries.isEmpty)

        // Leaving records the exchange at once, with what arrived.
        stream.cancel()
        let entry = try #require(try HAR.Archive.read(from: cassette).log.entries.first)
        #expect(entry.response.status == 200)
        #expect(entry.response.content.text == Self.firstEvent)
        #expect(entry.response.content.custom["_kringleStreamEnd"] == .string("cancelled"))
        #expect(recorder.entries.count == 1)

        let replay = try ReplayTransport(cassette: cassette)
        var replayed = Data()
        for try await chunk in NetworkClient(transport: replay).stream(server.endpoint("/events")) {
            replayed.append(chunk)
        }
        #expect(String(decoding: replayed, as: UTF8.self) == Self.firstEvent)
        #expect(server.statistics.requestsReceived == 1)
    }

    @Test("a body bigger than the stream's buffer is recorded and relayed whole, the reader pacing the transfer")
    func bigStreamedBody() async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("big.har")
        // Three times the client's 1 MiB stream buffer.
        let body = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let server = try LoopbackServer { _ in .data(body) }
        defer { server.shutdown() }
        let recorder = RecordingTransport(recording: NetworkClient.makeDefaultTransport(), to: cassette)
        var received = Data()
        for try await chunk in NetworkClient(transport: recorder).stream(server.endpoint("/big")) {
            received.append(chunk)
        }
        #expect(received == body)
        let entry = try #require(try HAR.Archive.read(from: cassette).log.entries.first)
        #expect(try entry.response.content.body() == body)

        let replay = try ReplayTransport(cassette: cassette)
        var replayed = Data()
        for try await chunk in NetworkClient(transport: replay).stream(server.endpoint("/big")) {
            replayed.append(chunk)
        }
        #expect(replayed == body)
    }

    /// A recorded Server-Sent Events stream to record again: its head came at 0.4 ms, its two
    /// events at 0 and 1.5 s.
    private static let slowStream: HAR.Archive = {
        var content = HAR.Content(body: Data((firstEvent + lastEvent).utf8), mimeType: "text/event-stream")
        content.custom["_kringleChunks"] = .array([
            .object(["size": .number(Double(firstEvent.utf8.count)), "time": .number(0)]),
            .object(["size": .number(Double(lastEvent.utf8.count)), "time": .number(1500)]),
        ])
        let entry = HAR.Entry(
            startedDateTime: "2024-05-01T10:00:00.000Z", time: 0.4,
            request: HAR.Request(method: "GET", url: "https://chat.example/events"),
            response: HAR.Response(
                status: 200, headers: [HAR.NameValue(name: "Content-Type", value: "text/event-stream")],
                content: content))
        return HAR.Archive(log: HAR.Log(entries: [entry]))
    }()

    @Test(
        "a streamed entry's time and timings run to the end of its body, or to where the reader left (HAR 1.2 time)",
        arguments: [(readsToTheEnd: true, expected: 1500.0), (readsToTheEnd: false, expected: 1000.0)])
    func streamedEntryTimeCoversTheBody(readsToTheEnd: Bool, expected: Double) async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("slow.har")
        // The stream comes from a paced replay on the same clock as the recorder's: its second
        // event arrives when the test moves the clock 1.5 s on.
        let clock = ManualClock()
        let source = ReplayTransport(archive: Self.slowStream, pacing: .recorded, clock: clock)
        let recorder = RecordingTransport(recording: source, to: cassette, clock: clock)
        let endpoint = CassetteEndpoint(baseURL: URL(string: "https://chat.example")!, path: "/events")
        let stream = NetworkClient(transport: recorder).stream(endpoint)
        var chunks = stream.makeAsyncIterator()
        #expect(try await Self.read(&chunks, bytes: Self.firstEvent.utf8.count) == Data(Self.firstEvent.utf8))
        await clock.untilTimersPending(1)
        if readsToTheEnd {
            clock.advance(by: 1.5)
            #expect(try await Self.read(&chunks, bytes: .max) == Data(Self.lastEvent.utf8))
        } else {
            clock.advance(by: 1)
            stream.cancel()
        }

        let entry = try #require(try HAR.Archive.read(from: cassette).log.entries.first)
        #expect(entry.time == expected)
        // HAR 1.2 §entries: `time` is the sum of the timings that apply; `receive` holds the body.
        let timings = entry.timings
        let known = [timings.blocked, timings.dns, timings.connect, timings.send, timings.wait, timings.receive]
        #expect(known.filter { $0 >= 0 }.reduce(0, +) == entry.time)
        #expect(timings.receive >= expected - 0.4)
    }
}
