import Foundation
import KringleTestSupport
import KringleTesting
import Testing

@Suite("Cassette streams: recording", .generousTimeLimit)
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

    /// The `_kringleChunks` of `entry`: each chunk's size and time (milliseconds).
    private static func recordedChunks(_ entry: HAR.Entry) -> [(size: Int, time: Double)] {
        guard case .array(let chunks)? = entry.response.content.custom["_kringleChunks"] else {
            Issue.record("no _kringleChunks in \(entry.response.content.custom)")
            return []
        }
        return chunks.compactMap { chunk in
            guard case .object(let fields) = chunk, case .number(let size)? = fields["size"],
                case .number(let time)? = fields["time"]
            else { return nil }
            return (Int(size), time)
        }
    }

    /// Whether `server` completes a response within a minute: waited for on a thread of
    /// its own, so that no thread of the test runner blocks.
    private static func completed(_ server: LoopbackServer) async -> Bool {
        await onOwnThread { server.waitForStatistics(timeout: 60) { $0.responsesCompleted == 1 } }
    }

    /// Reads `stream` until `count` bytes have arrived (or it ends).
    private static func read(_ chunks: inout ResponseStream.AsyncIterator, bytes count: Int) async throws -> Data {
        var data = Data()
        while data.count < count, let chunk = try await chunks.next() { data.append(chunk) }
        return data
    }

    @Test(
        "a stream reaches the reader chunk by chunk while it is recorded, each chunk at its time on the recorder's clock, and replays as events in its chunks, at that pace if asked"
    )
    func readerSeesEachChunkWhileRecording() async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("events.har")
        let lastReleased = LoopbackServer.Gate()
        let server = try Self.eventServer(releasingLastOn: lastReleased)
        defer { server.shutdown() }
        let clock = ManualClock()
        let recorder = RecordingTransport(
            recording: NetworkClient.makeDefaultTransport(), to: cassette, clock: clock)
        let stream = NetworkClient(transport: recorder).stream(server.endpoint("/events"))
        var chunks = stream.makeAsyncIterator()

        // The server holds the last event back until the gate opens: the first has to come
        // through the recorder on its own, at 0 on the recorder's clock; the last comes
        // 1.5 s later on that clock.
        let first = try await Self.read(&chunks, bytes: Self.firstEvent.utf8.count)
        #expect(String(decoding: first, as: UTF8.self) == Self.firstEvent)
        #expect(recorder.entries.isEmpty)
        clock.advance(by: 1.5)
        lastReleased.open()
        let rest = try await Self.read(&chunks, bytes: .max)
        #expect(String(decoding: rest, as: UTF8.self) == Self.lastEvent)

        // The end reaches the reader once the entry is in the cassette.
        let entry = try #require(try HAR.Archive.read(from: cassette).log.entries.first)
        #expect(entry.response.content.text == Self.firstEvent + Self.lastEvent)
        #expect(entry.response.content.custom["_kringleStreamEnd"] == nil)
        let recordedChunks = Self.recordedChunks(entry)
        let sizes = recordedChunks.map(\.size)
        // Each chunk at the time it reached the recorder: the first event's at 0 ms, the
        // last's at 1500 ms.
        let bytesByTime = Dictionary(recordedChunks.map { ($0.time, $0.size) }, uniquingKeysWith: +)
        #expect(bytesByTime == [0: Self.firstEvent.utf8.count, 1500: Self.lastEvent.utf8.count], "\(recordedChunks)")

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

        // At the recorded pace: the last event waits its 1.5 s on the replay's clock.
        let replayClock = ManualClock()
        let paced = try ReplayTransport(cassette: cassette, pacing: .recorded, clock: replayClock)
        let replayed = NetworkClient(transport: paced).stream(server.endpoint("/events"))
        var replayedChunks = replayed.makeAsyncIterator()
        let replayedFirst = try await Self.read(&replayedChunks, bytes: Self.firstEvent.utf8.count)
        #expect(String(decoding: replayedFirst, as: UTF8.self) == Self.firstEvent)
        await replayClock.untilTimersPending(1)
        #expect(replayClock.pendingDelays == [1.5])
        replayClock.advance(by: 1.5)
        let replayedRest = try await Self.read(&replayedChunks, bytes: .max)
        #expect(String(decoding: replayedRest, as: UTF8.self) == Self.lastEvent)
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
        // One and a half times the client's 1 MiB stream buffer: so that all of it fits in
        // that buffer and the recorder's own, which lets the server finish while the
        // reader pauses.
        let buffer = 1 << 20
        let body = Data((0..<(buffer * 3 / 2)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let server = try LoopbackServer { _ in .data(body) }
        defer { server.shutdown() }
        let clock = ManualClock()
        let recorder = RecordingTransport(
            recording: NetworkClient.makeDefaultTransport(), to: cassette, clock: clock)
        var reading = NetworkClient(transport: recorder).stream(server.endpoint("/big")).makeAsyncIterator()
        var received = try #require(try await reading.next())
        // The reader pauses after its first chunk, until the server has sent everything, and
        // then for 10 s on the recorder's clock.
        #expect(await Self.completed(server))
        clock.advance(by: 10)
        while let chunk = try await reading.next() { received.append(chunk) }
        #expect(received == body)
        let entry = try #require(try HAR.Archive.read(from: cassette).log.entries.first)
        #expect(try entry.response.content.body() == body)

        // The reader paced the transfer: while it paused, the recorder took no more than the
        // stream's buffer holds (and a chunk or two on either side of it); the rest waited
        // for the reader, and was taken at 10 s. A recorder that read ahead of its reader
        // would have taken the whole body at 0, as the network brought it.
        let chunks = Self.recordedChunks(entry)
        let largest = chunks.map(\.size).max() ?? 0
        let beforeTheReaderWentOn = chunks.filter { $0.time == 0 }.map(\.size).reduce(0, +)
        let afterwards = chunks.filter { $0.time == 10_000 }.map(\.size).reduce(0, +)
        #expect(beforeTheReaderWentOn + afterwards == body.count, "\(chunks.map(\.time))")
        #expect(
            beforeTheReaderWentOn <= buffer + 3 * largest, "\(beforeTheReaderWentOn) bytes before the reader went on")

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
