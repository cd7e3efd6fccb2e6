import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

@Suite("IdleWatchdog", .generousTimeLimit)
struct IdleWatchdogTests {
    @Test("a transfer without progress is rejected with timedOut(.idle) and cancelled, not before the timeout")
    func firesWhenIdle() async throws {
        let clock = ManualClock()
        let transfer = Promise<HTTPResponse>.pending()
        let guarded = try #require(IdleWatchdog(timeout: 0.3, clock: clock)).guarding(transfer)

        let failure = await guarded.outcome(at: 0.3, on: clock).failure
        guard case KringleError.timedOut(.idle)? = failure else {
            Issue.record("expected timedOut(.idle), got \(String(describing: failure))")
            return
        }
        #expect(transfer.isCancelled)
        #expect(clock.pendingTimers == 0, "the watchdog stops once it has fired")
    }

    @Test("silence is measured from the last progress: short of the timeout the transfer lives on")
    func progressKeepsAlive() async throws {
        let clock = ManualClock()
        let transfer = Promise<HTTPResponse>.pending()
        let watchdog = try #require(IdleWatchdog(timeout: 1, clock: clock))
        let guarded = watchdog.guarding(transfer)

        // 1.8 s in all, never more than 0.9 s without progress.
        clock.advance(by: 0.9)
        watchdog.touch()
        clock.advance(by: 0.9)
        #expect(guarded.isPending)

        clock.advance(by: 0.1)
        let failure = await guarded.outcome().failure
        guard case KringleError.timedOut(.idle)? = failure else {
            Issue.record("expected timedOut(.idle), got \(String(describing: failure))")
            return
        }
        // The guard is rejected first, then the transfer cancelled.
        #expect(transfer.isCancelled)
    }

    @Test("the transfer's own failure passes through, and cancelling the guard cancels the transfer")
    func passesThroughAndCancels() async throws {
        let clock = ManualClock()
        let failing = Promise<HTTPResponse>.pending()
        let guardedFailing = try #require(IdleWatchdog(timeout: 30, clock: clock)).guarding(failing)
        failing.reject(KringleError.invalidRequest("boom"))
        #expect(await guardedFailing.outcome().kringleError?.caseName == "invalidRequest")

        let running = Promise<HTTPResponse>.pending()
        let guardedRunning = try #require(IdleWatchdog(timeout: 30, clock: clock)).guarding(running)
        guardedRunning.cancel()
        #expect(await guardedRunning.outcome().isCancellation)
        #expect(running.isCancelled)
        #expect(clock.pendingTimers == 0, "both watchdogs stopped with their transfers")
    }
}

@Suite("IdleWatchdog without a limit", .generousTimeLimit)
struct IdleWatchdogNoLimitTests {
    @Test("a timeout of zero or less sets no watchdog, so a transfer is never rejected for silence")
    func noLimit() {
        #expect(IdleWatchdog(timeout: 0, clock: ManualClock()) == nil)
        #expect(IdleWatchdog(timeout: -1, clock: ManualClock()) == nil)
    }
}
