import Foundation
import KringleTestSupport
import KringleTesting
import Testing

@testable import Kringle

@Suite("IdleWatchdog")
struct IdleWatchdogTests {
    @Test("a transfer without progress is rejected with timedOut and cancelled, not before the timeout")
    func firesWhenIdle() async {
        let clock = ManualClock()
        let transfer = Promise<HTTPResponse>.pending()
        let guarded = IdleWatchdog(timeout: 0.3, clock: clock).guarding(transfer)

        #expect((await guarded.outcome(at: 0.3, on: clock).failure as? PromiseError) == .timedOut)
        #expect(transfer.isCancelled)
        #expect(clock.pendingTimers == 0, "the watchdog stops once it has fired")
    }

    @Test("silence is measured from the last progress: short of the timeout the transfer lives on")
    func progressKeepsAlive() async throws {
        let clock = ManualClock()
        let transfer = Promise<HTTPResponse>.pending()
        let watchdog = IdleWatchdog(timeout: 1, clock: clock)
        let guarded = watchdog.guarding(transfer)

        // 1.8 s in all, never more than 0.9 s without progress.
        clock.advance(by: 0.9)
        watchdog.touch()
        clock.advance(by: 0.9)
        #expect(guarded.isPending)

        clock.advance(by: 0.1)
        #expect((await guarded.outcome().failure as? PromiseError) == .timedOut)
        // The guard is rejected first, then the transfer cancelled.
        #expect(transfer.isCancelled)
    }

    @Test("the transfer's own failure passes through, and cancelling the guard cancels the transfer")
    func passesThroughAndCancels() async {
        let clock = ManualClock()
        let failing = Promise<HTTPResponse>.pending()
        let guardedFailing = IdleWatchdog(timeout: 30, clock: clock).guarding(failing)
        failing.reject(KringleError.invalidRequest("boom"))
        #expect(await guardedFailing.outcome().kringleError?.caseName == "invalidRequest")

        let running = Promise<HTTPResponse>.pending()
        let guardedRunning = IdleWatchdog(timeout: 30, clock: clock).guarding(running)
        guardedRunning.cancel()
        #expect(await guardedRunning.outcome().isCancellation)
        #expect(running.isCancelled)
        #expect(clock.pendingTimers == 0, "both watchdogs stopped with their transfers")
    }
}
