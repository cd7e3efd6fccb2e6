import Dispatch
import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Synchronization
import Testing

@testable import KringleCore
@testable import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate queue that gives URLSession's data tasks backpressure. A suspended queue
/// runs nothing, so "the caller is still blocked" holds for as long as the test needs it.
/// The tests wait for a caller on threads of their own (``onOwnThread(_:)``).
@Suite("Paced delegate queue", .generousTimeLimit)
struct PacedDelegateQueueTests {
    /// A suspended queue already holding `limit` operations.
    private static func fullQueue(limit: Int, patience: TimeInterval) -> PacedDelegateQueue {
        let queue = PacedDelegateQueue(limit: limit, patience: patience)
        queue.isSuspended = true
        for _ in 0..<limit { queue.addOperation {} }
        return queue
    }

    /// Adds one more operation from a thread of its own; signalled once `addOperation` returns.
    private static func addFromAnotherThread(to queue: PacedDelegateQueue) -> DispatchSemaphore {
        let returned = DispatchSemaphore(value: 0)
        DispatchQueue(label: "producer").async {
            queue.addOperation {}
            returned.signal()
        }
        return returned
    }

    @Test func aCallerWaitsWhileTheQueueIsFullAndGoesOnOnceItDrains() async {
        let queue = Self.fullQueue(limit: 4, patience: 600)
        let returned = Self.addFromAnotherThread(to: queue)

        #expect(
            await onOwnThread { returned.wait(timeout: .now() + 0.2) } == .timedOut,
            "the fifth operation must wait for room")
        queue.isSuspended = false
        #expect(await onOwnThread { returned.wait(timeout: .now() + 30) } == .success)
    }

    @Test func withoutPacingLetsAWaitingCallerThrough() async {
        let queue = Self.fullQueue(limit: 1, patience: 600)
        let returned = Self.addFromAnotherThread(to: queue)
        #expect(await onOwnThread { returned.wait(timeout: .now() + 0.2) } == .timedOut)

        let through = await onOwnThread { queue.withoutPacing { returned.wait(timeout: .now() + 30) } }
        #expect(through == .success)
        queue.isSuspended = false
    }

    @Test func aCallerGivesUpWhenNothingFinishesWithinThePatience() async {
        let queue = Self.fullQueue(limit: 1, patience: 0.05)
        let returned = Self.addFromAnotherThread(to: queue)

        #expect(await onOwnThread { returned.wait(timeout: .now() + 30) } == .success)
        queue.isSuspended = false
    }

    @Test func theQueueNeverWaitsForItself() async {
        let queue = PacedDelegateQueue(limit: 1, patience: 600)
        let done = DispatchSemaphore(value: 0)
        queue.addOperation {
            for _ in 0..<3 { queue.addOperation {} }
            done.signal()
        }

        #expect(await onOwnThread { done.wait(timeout: .now() + 30) } == .success)
    }

    @Test func kringlesOwnOperationsNeverWait() async {
        let queue = PacedDelegateQueue(limit: 1, patience: 600)
        queue.isSuspended = true
        let ran = Counter()
        for _ in 0..<3 { queue.enqueue { ran.increment() } }
        queue.isSuspended = false
        await onOwnThread { queue.waitUntilAllOperationsAreFinished() }

        #expect(ran.value == 3)
    }
}

#if canImport(FoundationNetworking)
/// `URLSessionTransport` reports progress on its delegate queue, so a slow report stands
/// for a slow disk: without pacing, FoundationNetworking would queue the whole body.
/// (Apple's URLSession is not paced.)
@Suite("URLSessionTransport backpressure", .generousTimeLimit)
struct URLSessionBackpressureTests {
    static let body = patternedData(count: 16 << 20)

    @Test func aSlowDelegateHoldsTheTransferBack() async throws {
        let server = try LoopbackServer { _ in .data(Self.body) }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let file = try scratch.write(Data(), to: "body.bin")
        let transport = URLSessionTransport()

        let response = try await transport.transfer(
            TransferRequest(
                request: try ValidatedRequest(HTTPRequest(url: server.url("/body"))),
                responseBodyFile: file,
                // Real time on purpose: a delegate slower than the loopback network, which is
                // what the pacing must hold FoundationNetworking back for.
                progress: { _ in usleep(300) }
            )
        ).valueWithin(120)

        #expect(response.statusCode == 200)
        #expect(streamingContents(of: file) == Self.body)
        // Unpaced, about a thousand chunks pile up; a starved delegate thread may let a
        // few more through (the patience), never that many.
        let queue = transport.delegateQueue
        #expect(queue.highWaterMark <= 2 * queue.limit, "\(queue.highWaterMark) operations were queued")
    }

    @Test func cancellingAHeldBackTransferStopsIt() async throws {
        // The server sends 4 MiB, then holds the rest back until the gate opens, which is
        // after the cancellation has closed the connection: so it cannot have finished before,
        // however slow the test.
        let released = LoopbackServer.Gate()
        let server = try LoopbackServer { _ in
            .data(Self.body).withBehavior(.paced([.init(bytes: 4 << 20, then: .until(released))], afterLast: .sendRest))
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let file = try scratch.write(Data(), to: "body.bin")
        // Cancelled from a queue of its own as soon as the first chunk is reported, while the
        // slow delegate has a thousand chunks (about a second) still to go: no wait on the
        // test's own task, which a busy test runner may resume late.
        let transfer = Box<Promise<HTTPResponse>?>(nil)
        let canceller = DispatchQueue(label: "kringle.tests.canceller")
        let cancelSent = Atomic(false)

        let started = URLSessionTransport().transfer(
            TransferRequest(
                request: try ValidatedRequest(HTTPRequest(url: server.url("/body"))),
                responseBodyFile: file,
                progress: { _ in
                    if cancelSent.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged {
                        canceller.async { transfer.withLock { $0 }?.cancel() }
                    }
                    usleep(1_000)  // a slow delegate, as above
                }
            ))
        transfer.withLock { $0 = started }
        if cancelSent.load(ordering: .relaxed) { started.cancel() }  // reported before it was stored

        let outcome = await started.outcome()
        #expect(outcome.isCancellation, "\(outcome)")

        // Stopped, not just rejected: the connection closes while the server still holds the
        // rest back, however long FoundationNetworking takes to act on the cancel. A transfer
        // still running would keep it open, waiting for that rest.
        #expect(
            await server.awaitStatistics(within: 60) { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
        released.open()
        #expect(server.statistics.responsesCompleted == 0, "\(server.statistics)")
    }
}
#endif
