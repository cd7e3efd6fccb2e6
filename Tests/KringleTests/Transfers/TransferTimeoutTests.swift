import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Transfer timeouts are idle timeouts", .generousTimeLimit)
struct TransferTimeoutTests {
    @Test(
        "a download that keeps making progress for longer than the timeout succeeds",
        arguments: TransportUnderTest.allCases)
    func progressOutlastsTimeout(_ transport: TransportUnderTest) async throws {
        // 20 steps of 64 KB, each released after 0.9 s on the client's clock: 18 s in all,
        // against a 1 s timeout that is never reached between two steps.
        let body = streamingRandomData(count: 20 << 16, seed: 31)
        let gates = (0..<20).map { _ in LoopbackServer.Gate() }
        let requests = Counter()
        let server = try LoopbackServer { _ in
            requests.increment()
            return .data(body).withBehavior(
                .paced(gates.map { .init(bytes: 1 << 16, then: .until($0)) }, afterLast: .sendRest))
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("slow.bin")
        let clock = ManualClock()
        // The client restarts the timeout from the transport's progress reports; a chunk
        // reaches the file a moment before its report does, so the test waits for reports.
        let reports = ProgressReportRecorder(base: transport.make())
        var configuration = NetworkClient.Configuration()
        configuration.timeout = 1
        configuration.clock = clock
        let client = NetworkClient(configuration: configuration, transport: reports)
        @Sendable func arrived() -> Int64 { reports.received }

        let download = client.download(server.clientEndpoint("/slow.bin"), to: destination)
        for (step, gate) in gates.enumerated() {
            // The step's bytes have been reported before time moves on.
            let expected = Int64(step + 1) << 16
            // (The last step completes the body, and the file moves into place.)
            #expect(
                await eventually { arrived() >= expected || !download.isPending }, "step \(step): \(arrived()) bytes")
            clock.advance(by: 0.9)
            gate.open()
        }
        let outcome = await download.outcome(within: 30)
        #expect(outcome.failure == nil, "\(outcome)")
        #expect(clock.uptimeNanoseconds == 18_000_000_000, "the transfer outlasted the timeout many times over")
        // One request: no timeout was hidden by a retry.
        #expect(requests.value == 1)
        #expect(streamingContents(of: destination) == body)
        #expect(scratch.entries == ["slow.bin"])
    }

    @Test(
        "a transfer that stalls mid-body rejects with timedOut after the timeout and leaves no file",
        arguments: TransportUnderTest.allCases)
    func stallMidBody(_ transport: TransportUnderTest) async throws {
        let body = streamingRandomData(count: 1 << 20, seed: 32)
        let server = try LoopbackServer { _ in
            .data(body).withBehavior(.paced([.init(bytes: 200_000)], afterLast: .holdUntilHangUp))
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("stalled.bin")
        let clock = ManualClock()
        let client = transport.client(timeout: 0.5, clock: clock)
        let firstProgress = Promise<Void>.pending()

        let download = client.download(server.clientEndpoint("/stalled.bin"), to: destination) { _ in
            firstProgress.fulfill(())
        }
        try await firstProgress.valueWithin(30)
        let outcome = await download.outcome(at: 0.5, on: clock)
        #expect(outcome.kringleError?.caseName == "timedOut", "\(outcome)")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(await eventually { scratch.entries.isEmpty }, "\(scratch.entries)")
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer == 1 }, "the stalled transfer was stopped")
    }

    @Test(
        "a server that delays its answer past the timeout rejects the download with timedOut",
        arguments: TransportUnderTest.allCases)
    func delayedAnswer(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in LoopbackServer.Response.data(Data(count: 1_000)).heldUntilHangUp() }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("late.bin")
        let clock = ManualClock()
        let client = transport.client(timeout: 0.5, clock: clock)

        let download = client.download(server.clientEndpoint("/late.bin"), to: destination)
        #expect(await server.awaitStatistics { $0.requestsReceived == 1 })
        let outcome = await download.outcome(at: 0.5, on: clock)
        #expect(outcome.kringleError?.caseName == "timedOut", "\(outcome)")
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
        #expect(await eventually { scratch.entries.isEmpty }, "\(scratch.entries)")
    }

    @Test("a connection closed mid-body fails the download and leaves no file", arguments: TransportUnderTest.allCases)
    func closedMidBody(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in
            LoopbackServer.Response.data(Data(count: 4 << 20)).withBehavior(.closeMidBody)
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let previous = Data("keep me".utf8)
        let destination = try scratch.write(previous, to: "cut.bin")
        let client = transport.client { $0.timeout = 2 }

        let outcome = await client.download(server.clientEndpoint("/cut.bin"), to: destination).outcome()
        let caseName = outcome.kringleError?.caseName
        #expect(caseName == "incompleteResponse" || caseName == "timedOut", "\(outcome)")
        #expect(streamingContents(of: destination) == previous)
        #expect(await eventually { scratch.entries == ["cut.bin"] }, "\(scratch.entries)")
    }

    @Test("an upload is held to the timeout only while it makes no progress", arguments: TransportUnderTest.allCases)
    func uploadStalledAnswer(_ transport: TransportUnderTest) async throws {
        // The body goes out at once; the answer then takes longer than the timeout.
        let server = try LoopbackServer { request in
            LoopbackServer.Response.streamingReceipt(for: request).heldUntilHangUp()
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let file = try scratch.write(streamingRandomData(count: 1 << 20), to: "up.bin")
        let clock = ManualClock()
        let client = transport.client(timeout: 0.5, clock: clock)

        let upload = client.upload(file, to: server.clientEndpoint("/up"), as: StreamingReceipt.self)
        // The whole body has arrived: from here on the transfer makes no progress.
        #expect(await server.awaitStatistics { $0.requestsReceived == 1 })
        clock.advance(by: 0.5)
        let outcome = await upload.outcome(within: 30)
        #expect(outcome.kringleError?.caseName == "timedOut", "\(outcome)")
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
    }
}

/// A transport whose transfers record the bytes received as far as their progress reports
/// have been handled (the client's included, which is what restarts its idle timeout).
private struct ProgressReportRecorder: Transport {
    let base: any Transport
    private let latest = Box<Int64>(0)

    init(base: any Transport) {
        self.base = base
    }

    var received: Int64 {
        latest.value
    }

    func send(_ request: ValidatedRequest) -> Promise<HTTPResponse> {
        base.send(request)
    }

    func transfer(_ transfer: TransferRequest) -> Promise<HTTPResponse> {
        var recorded = transfer
        let handle = transfer.progress
        recorded.progress = { [latest] report in
            handle?(report)
            latest.withLock { $0 = max($0, report.received) }
        }
        return base.transfer(recorded)
    }
}
