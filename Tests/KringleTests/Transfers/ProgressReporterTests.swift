import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

@Suite("ProgressReporter", .generousTimeLimit)
struct ProgressReporterTests {
    /// Progress values from (completed, total) pairs.
    private static func progress(_ pairs: (Int64, Int64?)...) -> [TransferProgress] {
        pairs.map { TransferProgress(completedBytes: $0.0, totalBytes: $0.1) }
    }

    @Test("a burst of updates is throttled to one callback per 50 ms, plus the final one")
    func throttles() async {
        let total: Int64 = 1 << 40
        let clock = ManualClock()
        let log = StreamingProgressLog(total: total)
        let reporter = ProgressReporter(.download, clock: clock, callback: log.callback)
        // One update per millisecond for a second.
        for received in Int64(1)...1_000 {
            reporter.report(sent: 0, received: received, expected: total)
            clock.advance(by: 0.001)
        }
        reporter.finish(completed: total)
        #expect(await log.awaitCompletion())

        // The first update goes at once, then one every 50 ms.
        let expected = stride(from: Int64(1), through: 951, by: 50).map {
            TransferProgress(completedBytes: $0, totalBytes: total)
        }
        #expect(Array(log.values.dropLast()) == expected)
        #expect(log.values.last == TransferProgress(completedBytes: total, totalBytes: total))
    }

    @Test("updates that do not move forward are not reported")
    func neverBackwards() async throws {
        let log = StreamingProgressLog(total: 300)
        let clock = ManualClock()
        let reporter = ProgressReporter(.download, clock: clock, callback: log.callback)
        reporter.report(sent: 0, received: 100, expected: 300)
        clock.advance(by: 0.12)
        reporter.report(sent: 0, received: 100, expected: 300)
        reporter.report(sent: 0, received: 50, expected: 300)
        clock.advance(by: 0.12)
        reporter.report(sent: 0, received: 60, expected: 300)
        reporter.report(sent: 0, received: 200, expected: 300)
        reporter.finish(completed: 300)
        #expect(await log.awaitCompletion())
        #expect(log.values == Self.progress((100, 300), (200, 300), (300, 300)))
    }

    @Test("the final callback comes once, and nothing after it")
    func finalOnce() async throws {
        let log = StreamingProgressLog(total: 500)
        let clock = ManualClock()
        let reporter = ProgressReporter(.download, clock: clock, callback: log.callback)
        reporter.report(sent: 0, received: 10, expected: nil)
        reporter.finish(completed: 500)
        reporter.finish(completed: 600)
        clock.advance(by: 0.06)
        reporter.report(sent: 0, received: 700, expected: nil)
        #expect(await log.awaitCompletion())
        // A marker through a second reporter's queue would not order this one.
        await allowTimeForAWrongEvent()
        #expect(log.values == Self.progress((10, nil), (500, 500)))
    }

    @Test("a final count below what was reported still never goes backwards")
    func finalNotBelowDelivered() async {
        let log = StreamingProgressLog(total: 200)
        let reporter = ProgressReporter(.download, clock: ManualClock(), callback: log.callback)
        reporter.report(sent: 0, received: 200, expected: 1_000)
        reporter.finish(completed: 150)
        #expect(await log.awaitCompletion())
        #expect(log.values == Self.progress((200, 1_000), (200, 200)))
    }

    @Test("uploads count bytes sent, out of the body's length, never beyond it")
    func upload() async throws {
        let log = StreamingProgressLog(total: 1_000)
        let clock = ManualClock()
        let reporter = ProgressReporter(.upload(total: 1_000), clock: clock, callback: log.callback)
        reporter.report(sent: 400, received: 999, expected: 5)
        clock.advance(by: 0.12)
        reporter.report(sent: 1_200, received: 0, expected: nil)
        reporter.finish(completed: 1_000)
        #expect(await eventually { log.values.count == 3 })
        #expect(log.values == Self.progress((400, 1_000), (1_000, 1_000), (1_000, 1_000)))
    }

    @Test("a download counts only the body of a response with an acceptable status")
    func downloadCountsAcceptableOnly() async throws {
        let log = StreamingProgressLog(total: 900)
        let clock = ManualClock()
        let reporter = ProgressReporter(.download, clock: clock, callback: log.callback)
        // A redirect's body, an error's body, bytes before the head: none of them the file.
        reporter.report(sent: 0, received: 5_000, expected: 5_000, status: 302)
        reporter.report(sent: 0, received: 6_000, expected: 6_000, status: 503)
        reporter.report(sent: 0, received: 7_000, expected: nil, status: nil)
        reporter.report(sent: 0, received: 300, expected: 900, status: 200)
        clock.advance(by: 0.12)
        reporter.report(sent: 0, received: 400, expected: 900, status: 206)
        reporter.finish(completed: 900)
        #expect(await log.awaitCompletion())
        #expect(log.values == Self.progress((300, 900), (400, 900), (900, 900)))
    }

    @Test("an upload counts bytes sent whatever the status, before and after the head")
    func uploadCountsAnyStatus() async throws {
        let log = StreamingProgressLog(total: 100)
        let clock = ManualClock()
        let reporter = ProgressReporter(.upload(total: 100), clock: clock, callback: log.callback)
        reporter.report(sent: 40, received: 0, expected: nil, status: nil)
        clock.advance(by: 0.12)
        reporter.report(sent: 70, received: 0, expected: nil, status: 500)
        reporter.finish(completed: 100)
        #expect(await log.awaitCompletion())
        #expect(log.values.map(\.completedBytes) == [40, 70, 100])
    }

    @Test("callbacks run on the reporter's queue, never on the thread that reports")
    func offTheReportingThread() async {
        let log = StreamingProgressLog(total: 2)
        let reporter = ProgressReporter(.download, clock: ManualClock(), callback: log.callback)
        let caller = StreamingParkedCaller()
        await caller.call {
            reporter.report(sent: 0, received: 1, expected: 2)
            reporter.finish(completed: 2)
        }
        #expect(await log.awaitCompletion())
        caller.release()
        #expect(log.all.count == 2)
        #expect(log.all.allSatisfy { $0.thread != caller.threadID })
    }
}

extension ProgressReporter {
    /// A transport's report of a response with `status` (200 unless given), judged against
    /// the default acceptable statuses.
    fileprivate func report(sent: Int64, received: Int64, expected: Int64?, status: Int? = 200) {
        update(
            TransferReport(sent: sent, received: received, expectedToReceive: expected, statusCode: status),
            acceptable: 200..<300)
    }
}
