import Foundation
import Synchronization
import Testing
@testable import Kringle

@Suite("IdleWatchdog")
struct IdleWatchdogTests {
    @Test("a transfer without progress is rejected with timedOut and cancelled, not before the timeout")
    func firesWhenIdle() async {
        let transfer = Promise<HTTPResponse>.pending()
        let clock = ContinuousClock()
        let start = clock.now
        // Timed when the watchdog cancels the transfer, not when this test resumes.
        let cancelledAt = Mutex<ContinuousClock.Instant?>(nil)
        transfer.onCancel { cancelledAt.withLock { $0 = clock.now } }
        let guarded = IdleWatchdog(timeout: 0.3).guarding(transfer)

        let outcome = await guarded.outcome(within: 10)
        #expect((outcome.failure as? PromiseError) == .timedOut, "\(outcome)")
        #expect(await eventually { cancelledAt.withLock { $0 } != nil })
        if let cancelled = cancelledAt.withLock({ $0 }) {
            #expect(cancelled - start >= .milliseconds(290), "\(cancelled - start)")
        }
    }

    @Test("silence is measured from the last progress: short of the timeout the transfer lives on")
    func progressKeepsAlive() async throws {
        let clock = StreamingManualClock()
        let transfer = Promise<HTTPResponse>.pending()
        let watchdog = IdleWatchdog(timeout: 1, uptime: clock.uptime)
        let guarded = watchdog.guarding(transfer)

        // 1.8 s in all, never more than 0.9 s without progress. The watchdog looks every
        // 0.1 s of real time; waiting for three looks shows it did not fire.
        clock.advance(milliseconds: 900)
        watchdog.touch()
        clock.advance(milliseconds: 900)
        try await Task.sleep(for: .milliseconds(300))
        #expect(guarded.isPending)

        clock.advance(milliseconds: 100)
        #expect((await guarded.outcome(within: 10).failure as? PromiseError) == .timedOut)
        // The guard is rejected first, then the transfer cancelled.
        #expect(await eventually { transfer.isCancelled })
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
