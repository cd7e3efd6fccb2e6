import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Downloads to a file", .generousTimeLimit)
struct DownloadTests {
    /// 50 MB, made once for every transport.
    static let fiftyMegabytes = patternedData(count: 50 << 20)

    @Test(
        "a 50 MB download arrives byte-identical, with throttled progress that ends in completion",
        arguments: TransportUnderTest.allCases)
    func fiftyMegabytes(_ transport: TransportUnderTest) async throws {
        let body = Self.fiftyMegabytes
        let total = Int64(body.count)
        let server = try LoopbackServer { _ in .data(body) }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let threads = StreamingTransportThreads()
        let client = transport.streamingClient(wrapping: { StreamingProbeTransport(base: $0, threads: threads) })
        let log = StreamingProgressLog(total: total, transportThreads: threads)
        let destination = scratch.file("big.bin")
        let caller = StreamingParkedCaller()
        defer { caller.release() }

        let start = ContinuousClock.now
        let download = await caller.call {
            client.download(server.clientEndpoint("/big.bin"), to: destination, progress: log.callback)
        }
        let response = try await download.valueWithin(60)
        #expect(response.value == destination)
        #expect(response.statusCode == 200)
        #expect(await log.awaitCompletion(), "\(log.values.suffix(3))")
        let arrived = streamingContents(of: destination)
        #expect(arrived?.count == body.count)
        #expect(arrived == body, "the file differs from the served bytes")
        #expect(scratch.entries == ["big.bin"], "no temporary file is left")

        let entries = log.all
        let values = entries.map(\.progress)
        #expect(log.isMonotonic, "\(values.map(\.completedBytes))")
        #expect(values.last == TransferProgress(completedBytes: total, totalBytes: total))
        #expect(values.allSatisfy { $0.totalBytes == nil || $0.totalBytes == total })
        // The transport's first report of the body goes out at once: progress is seen while
        // the bytes arrive, not only at the end.
        #expect(values.count >= 2, "only \(values) arrived")
        #expect(values.first.map { $0.completedBytes < total } == true, "\(values.prefix(2))")
        // At most about 20 a second plus the final one (lenient: 25 a second plus 3).
        let last = entries.last?.time ?? start
        let seconds = Double((last - start).components.seconds) + Double((last - start).components.attoseconds) / 1e18
        #expect(entries.count <= Int(25 * seconds) + 3, "\(entries.count) callbacks in \(seconds) s")
        // Never on the caller's thread, never inside the transport's own report.
        #expect(threads.reportCount > 0)
        #expect(entries.allSatisfy { $0.thread != caller.threadID })
        #expect(entries.allSatisfy { !$0.insideTransport })
    }

    @Test(
        "cancelling mid-download leaves neither the destination nor a temporary file, and stops the transfer",
        arguments: TransportUnderTest.allCases)
    func cancelMidBody(_ transport: TransportUnderTest) async throws {
        // The server sends the first 256 KB of 4 MB, then nothing, until the client hangs up.
        let body = streamingRandomData(count: 4 << 20)
        let server = try LoopbackServer { _ in
            .data(body).withBehavior(.paced([.init(bytes: 256 << 10)], afterLast: .holdUntilHangUp))
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let firstProgress = Promise<TransferProgress>.pending()
        let download = transport.client().download(
            server.clientEndpoint("/file.bin"),
            to: destination
        ) { firstProgress.fulfill($0) }

        // Without a progress callback the download is cancelled all the same (it is still
        // mid-body: the server holds), so the clean-up is checked either way.
        let first = try? await firstProgress.valueWithin()
        #expect(first != nil, "no progress callback arrived for the first 256 KB")
        if let first {
            #expect(first.completedBytes > 0 && first.completedBytes < Int64(body.count), "\(first)")
        }
        download.cancel()
        #expect(await download.outcome().isCancellation)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(await eventually { scratch.entries.isEmpty }, "\(scratch.entries)")
        // The transport really stopped: the server saw the connection close.
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
    }

    @Test(
        "every progress callback, the final one included, has run before the download or upload settles",
        arguments: TransportUnderTest.allCases)
    func progressBeforeSettlement(_ transport: TransportUnderTest) async throws {
        let body = streamingRandomData(count: 1 << 20, seed: 41)
        let server = try LoopbackServer { request in
            request.method == "GET" ? .data(body) : .json(#"{"ok": true}"#)
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let client = transport.client()
        let events = Recorder<String>()
        // A slow last callback: without the ordering, the settlement would overtake it.
        let progress: @Sendable (TransferProgress) -> Void = { progress in
            if progress.completedBytes == progress.totalBytes { usleep(50_000) }
            events.append("progress \(progress.completedBytes)")
        }

        _ = try await client.download(server.clientEndpoint("/file"), to: scratch.file("file.bin"), progress: progress)
            .tap { _ in events.append("downloaded") }.valueWithin()
        #expect(events.elements.last == "downloaded", "\(events.elements.suffix(3))")
        #expect(events.elements.dropLast().last == "progress \(body.count)")

        let file = try scratch.write(body, to: "up.bin")
        _ = try await client.upload(file, to: server.clientEndpoint("/up"), as: [String: Bool].self, progress: progress)
            .tap { _ in events.append("uploaded") }.valueWithin()
        #expect(events.elements.last == "uploaded", "\(events.elements.suffix(3))")
        #expect(events.elements.dropLast().last == "progress \(body.count)")
    }

    @Test(
        "cancelling while the server delays its answer leaves no file and drops the connection",
        arguments: TransportUnderTest.allCases)
    func cancelDuringDelay(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in LoopbackServer.Response.data(Data(count: 1_000)).heldUntilHangUp() }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("late.bin")
        let download = transport.client().download(server.clientEndpoint("/late"), to: destination)
        #expect(await server.awaitStatistics { $0.requestsReceived == 1 }, "\(server.statistics)")
        #expect(scratch.temporaryDownloads.count == 1, "the download goes to a temporary file: \(scratch.entries)")

        download.cancel()
        #expect(await download.outcome().isCancellation)
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(await eventually { scratch.entries.isEmpty }, "\(scratch.entries)")
    }

    @Test(
        "a 500 leaves the destination untouched and rejects with the status and the server's error body",
        arguments: TransportUnderTest.allCases)
    func serverError(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in .text("disk on fire", status: 500) }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let previous = Data("the previous download".utf8)
        let destination = try scratch.write(previous, to: "report.pdf")

        let outcome = await transport.client().download(server.clientEndpoint("/report.pdf"), to: destination).outcome()
        guard case .unacceptableStatusCode(let status, let response)? = outcome.kringleError else {
            Issue.record("expected unacceptableStatusCode, got \(outcome)")
            return
        }
        #expect(status == 500)
        #expect(response.statusCode == 500)
        #expect(String(decoding: response.body, as: UTF8.self) == "disk on fire")
        #expect(response.url.path == "/report.pdf")
        #expect(streamingContents(of: destination) == previous)
        #expect(await eventually { scratch.entries == ["report.pdf"] }, "\(scratch.entries)")
    }

    @Test("an error keeps at most the first megabyte of a large error body", arguments: TransportUnderTest.allCases)
    func largeErrorBody(_ transport: TransportUnderTest) async throws {
        let errorBody = streamingRandomData(count: 3 << 20)
        let server = try LoopbackServer { _ in .data(errorBody, status: 503) }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let outcome = await transport.client().download(server.clientEndpoint("/x"), to: scratch.file("x")).outcome()
        guard case .unacceptableStatusCode(503, let response)? = outcome.kringleError else {
            Issue.record("expected unacceptableStatusCode(503), got \(outcome)")
            return
        }
        #expect(response.body == errorBody.prefix(ResponseLimits.default.maximumErrorBodyBytes))
        #expect(await eventually { scratch.entries.isEmpty }, "\(scratch.entries)")
    }

    // Whoever awaits a download (`.value` resumes inline, on the settling thread) must not
    // find its temporary file any more. Clean-up in an ordinary handler on the concurrent
    // promises queue would race that; suspending the queue for a moment makes such a race
    // certain to show instead of merely likely. (Suspended, not held with a barrier: a
    // barrier would first wait for every job running there, such as another test's decode
    // held on purpose.)
    @Test("when a failed download settles, its temporary file is already gone")
    func temporaryGoneAtSettlement() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/broken", with: .init(status: 500, body: Data("no".utf8)))
        let client = NetworkClient(transport: transport)
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }

        var leftAtSettlement: [String] = []
        DispatchQueue.promises.suspend()
        do {
            defer { DispatchQueue.promises.resume() }
            let endpoint = ClientTestEndpoint(baseURL: clientURL("http://stub.example"), path: "/broken")
            let outcome = await client.download(endpoint, to: scratch.file("out.bin")).outcome()
            #expect(outcome.kringleError?.caseName == "unacceptableStatusCode", "\(outcome)")
            leftAtSettlement = scratch.temporaryDownloads
        }
        #expect(leftAtSettlement.isEmpty, "left when the promise rejected: \(leftAtSettlement)")
        #expect(await eventually { scratch.entries.isEmpty }, "\(scratch.entries)")
    }

    @Test(
        "a chunked body of unknown length downloads whole, its total known only at the end",
        arguments: TransportUnderTest.allCases)
    func chunkedBody(_ transport: TransportUnderTest) async throws {
        let body = streamingRandomData(count: 5 << 20, seed: 4)
        let server = try LoopbackServer { _ in
            LoopbackServer.Response.data(body).withBehavior(.chunked(chunkSize: 65_536))
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("chunked.bin")
        let log = StreamingProgressLog(total: Int64(body.count))

        _ = try await transport.client().download(server.clientEndpoint("/c"), to: destination, progress: log.callback)
            .valueWithin(30)
        #expect(streamingContents(of: destination) == body)
        #expect(await log.awaitCompletion())
        #expect(log.values.dropLast().allSatisfy { $0.totalBytes == nil }, "\(log.values)")
        #expect(log.isMonotonic)
    }

    @Test("an empty body downloads as an empty file, replacing what was there", arguments: TransportUnderTest.allCases)
    func emptyBody(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in .data(Data()) }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let destination = try scratch.write(Data("old".utf8), to: "empty.bin")
        let log = StreamingProgressLog(total: 0)

        _ = try await transport.client().download(server.clientEndpoint("/e"), to: destination, progress: log.callback)
            .valueWithin()
        #expect(streamingContents(of: destination) == Data())
        #expect(await log.awaitCompletion())
        #expect(log.values == [TransferProgress(completedBytes: 0, totalBytes: 0)])
        #expect(scratch.entries == ["empty.bin"])
    }

    @Test(
        "a destination in a missing directory is a file error and nothing is sent",
        arguments: TransportUnderTest.allCases)
    func missingDirectory(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in .data(Data("x".utf8)) }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let outcome = await transport.client()
            .download(server.clientEndpoint("/x"), to: scratch.file("no/such/dir/x.bin"))
            .outcome()
        #expect(outcome.kringleError?.caseName == "file", "\(outcome)")
        #expect(server.statistics.connectionsAccepted == 0)
        #expect(scratch.entries.isEmpty)
    }

    @Test(
        "two downloads racing to one destination leave one of them whole, never a mix",
        arguments: TransportUnderTest.allCases)
    func racingDownloads(_ transport: TransportUnderTest) async throws {
        let first = streamingRandomData(count: 4 << 20, seed: 5)
        let second = streamingRandomData(count: 3 << 20, seed: 6)
        let server = try LoopbackServer { request in .data(request.path == "/first" ? first : second) }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("shared.bin")
        let client = transport.client()

        let both = Promise<[Response<URL>]>.all([
            client.download(server.clientEndpoint("/first"), to: destination),
            client.download(server.clientEndpoint("/second"), to: destination),
        ])
        _ = try await both.valueWithin(30)
        let arrived = streamingContents(of: destination)
        #expect(arrived == first || arrived == second, "\(arrived?.count ?? -1) bytes, neither download")
        #expect(scratch.entries == ["shared.bin"])
    }
}
