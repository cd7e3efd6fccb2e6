import Foundation
import KringlePromise
import KringleTestSupport
import KringleTesting
import Testing

@Suite("timeout, delay, retry", .generousTimeLimit)
struct TimingTests {
    @Test func timeoutRejectsAndCancelsUpstream() async throws {
        let clock = ManualClock()
        let work = Promise<Int>.pending()
        let stopped = Flag()
        work.onCancel { stopped.set() }
        let limited = work.timeout(5, clock: clock)

        clock.advance(by: 4.999)
        #expect(limited.isPending && work.isPending)
        clock.advance(by: 0.001)
        let outcome = await limited.outcome()
        #expect(throws: PromiseError.timedOut) { try outcome.get() }
        #expect(stopped.isSet)
        #expect(work.isCancelled)
    }

    @Test(.timeLimit(.minutes(2)))
    func aCancelHandlerBlockedWhenItsTimeoutFiresHoldsUpNoOtherTimer() async throws {
        // The real clock: its timers share one queue, which user code must not hold.
        let gate = DispatchSemaphore(value: 0)
        let blocked = Flag()
        let work = Promise<Int>.pending()
        work.onCancel {
            blocked.set()
            // Bounded, so that a regression fails the test instead of hanging the run.
            _ = gate.wait(timeout: .now() + 60)
        }
        let first = work.timeout(0)
        #expect(await eventually(within: 30) { blocked.isSet })

        // The first timeout's cancel handler is blocked now; other timers must still fire.
        let second = Promise<Int>.pending().timeout(0.001)
        let delayed = Promise(2).delay(0.001)
        let fired = await eventually(within: 30) { !second.isPending && !delayed.isPending }
        gate.signal()
        #expect(fired)
        #expect(throws: PromiseError.timedOut) { try second.result?.get() }
        #expect(try delayed.result?.get() == 2)
        #expect(throws: PromiseError.timedOut) { try first.result?.get() }
    }

    @Test func timeoutPassesAnEarlierResultAndCallsItsTimerOff() async throws {
        let clock = ManualClock()
        let work = Promise<Int>.pending()
        let limited = work.timeout(5, clock: clock)
        #expect(clock.pendingTimers == 1)
        work.fulfill(1)
        #expect(try await limited.valueWithin() == 1)
        #expect(clock.pendingTimers == 0)
        clock.advance(by: 10)
        #expect(try await limited.valueWithin() == 1)
    }

    @Test func delayFulfilsAfterItsTimeAndNotBefore() async throws {
        let clock = ManualClock()
        let delayed = Promise(3).delay(0.1, clock: clock)
        await clock.untilTimersPending(1)
        #expect(clock.pendingDelays == [0.1])
        clock.advance(by: 0.099)
        #expect(delayed.isPending)
        clock.advance(by: 0.001)
        #expect(try await delayed.valueWithin() == 3)
    }

    @Test func delayPassesErrorsAtOnce() async throws {
        let clock = ManualClock()
        let outcome = await Promise<Int>(error: TestError(code: 2)).delay(60, clock: clock).outcome()
        #expect(throws: TestError(code: 2)) { try outcome.get() }
        #expect(clock.pendingTimers == 0)
    }

    @Test func cancellingADelayStopsIt() async throws {
        let clock = ManualClock()
        let ran = Flag()
        let delayed = Promise(1).delay(60, clock: clock)
        let after = delayed.tap { _ in ran.set() }
        await clock.untilTimersPending(1)
        after.cancel()
        let outcome = await after.outcome()
        #expect(throws: PromiseError.cancelled) { try outcome.get() }
        #expect(delayed.isCancelled)
        #expect(clock.pendingTimers == 0, "the cancelled delay's timer is called off")
        clock.advance(by: 60)
        #expect(!ran.isSet)
    }

    @Test func retryWaitsItsDelayAndStopsAtTheFirstSuccess() async throws {
        let clock = ManualClock()
        let attempts = Counter()
        let retrying = Promise.retry(attempts: 5, delay: 2, clock: clock) {
            let attempt = attempts.increment()
            return attempt < 3 ? Promise(error: TestError(code: attempt)) : Promise(attempt)
        }
        for expected in 1...2 {
            await clock.untilTimersPending(1)
            #expect(attempts.value == expected)
            clock.advance(by: 1.999)
            #expect(attempts.value == expected, "no attempt before the delay has passed")
            clock.advance(by: 0.001)
        }
        #expect(try await retrying.valueWithin() == 3)
        #expect(attempts.value == 3)
    }

    @Test func retryGivesUpAfterTheLimitWithTheLastError() async throws {
        let attempts = Counter()
        let outcome = await Promise<Int>.retry(attempts: 4, delay: 0) {
            Promise(error: TestError(code: attempts.increment()))
        }.outcome()
        #expect(throws: TestError(code: 4)) { try outcome.get() }
        #expect(attempts.value == 4)
    }

    @Test func retryConditionSeesAttemptAndError() async throws {
        let seen = Recorder<Int>()
        let outcome = await Promise<Int>.retry(
            attempts: 10, delay: 0,
            condition: { attempt, error in
                seen.append(attempt)
                return (error as? TestError)?.code != 2
            }
        ) { Promise(error: TestError(code: seen.elements.count + 1)) }.outcome()
        #expect(seen.elements == [1, 2])
        #expect(throws: TestError(code: 2)) { try outcome.get() }
    }

    @Test func cancellingRetryDuringItsDelayStopsFurtherAttempts() async throws {
        let clock = ManualClock()
        let attempts = Counter()
        let retrying = Promise<Int>.retry(attempts: 5, delay: 60, clock: clock) {
            attempts.increment()
            return Promise<Int>(error: TestError())
        }
        await clock.untilTimersPending(1)
        retrying.cancel()
        let outcome = await retrying.outcome()
        #expect(throws: PromiseError.cancelled) { try outcome.get() }
        // The retry may be storing its timer as the cancel runs; it calls the timer off then.
        #expect(await eventually { clock.pendingTimers == 0 })
        clock.advance(by: 60)
        #expect(attempts.value == 1)
    }

    @Test func cancellingRetryCancelsTheRunningAttempt() async throws {
        let attempt = Promise<Int>.pending()
        let started = Flag()
        let retrying = Promise.retry(attempts: 3, delay: 0) {
            started.set()
            return attempt
        }
        #expect(await eventually { started.isSet })
        retrying.cancel()
        #expect(await eventually { attempt.isCancelled })
    }

    @Test func cancellingRetryWhileItsWorkIsStartingAnAttemptCancelsThatAttempt() async throws {
        let attempt = Promise<Int>.pending()
        let started = Flag()
        let cancelled = DispatchSemaphore(value: 0)
        let retrying = Promise.retry(attempts: 3, delay: 0) {
            started.set()
            // Held here until the retry is cancelled: the attempt is returned afterwards.
            _ = cancelled.wait(timeout: .now() + 30)
            return attempt
        }
        #expect(await eventually { started.isSet })
        retrying.cancel()
        cancelled.signal()
        #expect(await eventually { attempt.isCancelled })
    }
}
