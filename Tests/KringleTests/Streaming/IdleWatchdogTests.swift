import Foundation
import Synchronization
import Testing
@testable import Kringle

@Suite("IdleWatchdog")
struct IdleWatchdogTests {
    @Test("a transfer without progress is rejected with timedOut and cancelled")
    func firesWhenIdle() async {
        let transfer = Promise<HTTPResponse>.pending()
        let clock = ContinuousClock()
        let start = clock.now
        // Timed when the watchdog cancels the transfer, not when this test resumes: under a
        // full parallel run the test's own task may wait for a thread.
        let cancelledAt = Mutex<ContinuousClock.Instant?>(nil)
        transfer.onCancel { cancelledAt.withLock { $0 = clock.now } }
        let guarded = IdleWatchdog(timeout: 0.3).guarding(transfer)
        let outcome = await guarded.outcome(within: 10)
        let elapsed = (cancelledAt.withLock { $0 } ?? clock.now) - start
        #expect((outcome.failure as? PromiseError) == .timedOut, "\(outcome)")
        #expect(elapsed >= .milliseconds(290), "\(elapsed)")
        #expect(elapsed < .seconds(5), "\(elapsed)")
        #expect(transfer.isCancelled)
    }

    @Test("progress more often than the timeout keeps a long transfer alive")
    func progressKeepsAlive() async throws {
        let transfer = Promise<HTTPResponse>.pending()
        let watchdog = IdleWatchdog(timeout: 0.4)
        let guarded = watchdog.guarding(transfer)
        let url = try #require(URL(string: "http://example.com/"))
        // 1.2 s in all, three times the timeout, touched every 40 ms from a plain thread.
        Thread {
            for _ in 0..<30 {
                usleep(40_000)
                watchdog.touch()
            }
            transfer.fulfill(HTTPResponse(statusCode: 200, url: url))
        }.start()
        let response = try await guarded.valueWithin(10)
        #expect(response.statusCode == 200)
        #expect(!transfer.isCancelled)
    }

    @Test("the transfer's own failure passes through, and cancelling the guard cancels the transfer")
    func passesThroughAndCancels() async {
        let failing = Promise<HTTPResponse>.pending()
        let guardedFailing = IdleWatchdog(timeout: 30).guarding(failing)
        failing.reject(KringleError.invalidRequest("boom"))
        #expect(await guardedFailing.outcome(within: 5).kringleError?.caseName == "invalidRequest")

        let running = Promise<HTTPResponse>.pending()
        let guardedRunning = IdleWatchdog(timeout: 30).guarding(running)
        guardedRunning.cancel()
        #expect(await guardedRunning.outcome(within: 5).isCancellation)
        #expect(running.isCancelled)
    }
}
