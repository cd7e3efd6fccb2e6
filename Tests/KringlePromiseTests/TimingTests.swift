import Foundation
import KringlePromise
import Testing

@Suite("timeout, delay, retry")
struct TimingTests {
    @Test func timeoutRejectsAndCancelsUpstream() async throws {
        let work = Promise<Int>.pending()
        let stopped = Flag()
        work.onCancel { stopped.set() }
        let outcome = await work.timeout(0.05).settled()
        #expect(throws: PromiseError.timedOut) { try outcome.get() }
        #expect(stopped.isSet)
        #expect(work.isCancelled)
    }

    @Test func timeoutPassesAnEarlierResult() async throws {
        #expect(try await Promise(1).delay(0.01).timeout(5).valueWithin() == 1)
    }

    @Test func delayFulfilsLater() async throws {
        let start = Date()
        #expect(try await Promise(3).delay(0.1).valueWithin() == 3)
        #expect(Date().timeIntervalSince(start) >= 0.1)
    }

    @Test func delayPassesErrorsAtOnce() async throws {
        let outcome = await Promise<Int>(error: TestError(code: 2)).delay(60).settled(within: 5)
        #expect(throws: TestError(code: 2)) { try outcome.get() }
    }

    @Test func cancellingADelayStopsIt() async throws {
        let ran = Flag()
        let delayed = Promise(1).delay(60)
        let after = delayed.tap { _ in ran.set() }
        after.cancel()
        let outcome = await after.settled()
        #expect(throws: PromiseError.cancelled) { try outcome.get() }
        #expect(delayed.isCancelled)
        #expect(!ran.isSet)
    }

    @Test func retryStopsAtTheFirstSuccess() async throws {
        let attempts = Counter()
        let value = try await Promise.retry(attempts: 5, delay: 0.001) {
            let attempt = attempts.increment()
            return attempt < 3 ? Promise(error: TestError(code: attempt)) : Promise(attempt)
        }.valueWithin()
        #expect(value == 3)
        #expect(attempts.value == 3)
    }

    @Test func retryGivesUpAfterTheLimitWithTheLastError() async throws {
        let attempts = Counter()
        let outcome = await Promise<Int>.retry(attempts: 4, delay: 0.001) {
            Promise(error: TestError(code: attempts.increment()))
        }.settled()
        #expect(throws: TestError(code: 4)) { try outcome.get() }
        #expect(attempts.value == 4)
    }

    @Test func retryConditionSeesAttemptAndError() async throws {
        let seen = Recorder<Int>()
        let outcome = await Promise<Int>.retry(attempts: 10, delay: 0.001, condition: { attempt, error in
            seen.append(attempt)
            return (error as? TestError)?.code != 2
        }) { Promise(error: TestError(code: seen.elements.count + 1)) }.settled()
        #expect(seen.elements == [1, 2])
        #expect(throws: TestError(code: 2)) { try outcome.get() }
    }

    @Test func cancellingRetryDuringItsDelayStopsFurtherAttempts() async throws {
        let attempts = Counter()
        let firstFailed = Promise<Void>.pending()
        let retrying = Promise<Int>.retry(attempts: 5, delay: 60) {
            attempts.increment()
            let attempt = Promise<Int>(error: TestError())
            attempt.catch { _ in firstFailed.fulfill(()) }
            return attempt
        }
        try await firstFailed.valueWithin(30)
        retrying.cancel()
        let outcome = await retrying.settled()
        #expect(throws: PromiseError.cancelled) { try outcome.get() }
        #expect(attempts.value == 1)
    }

    @Test func cancellingRetryCancelsTheRunningAttempt() async throws {
        let attempt = Promise<Int>.pending()
        let retrying = Promise.retry(attempts: 3, delay: 0) { attempt }
        let started = Flag()
        attempt.onCancel { started.set() }
        try await Task.sleep(nanoseconds: 20_000_000)
        retrying.cancel()
        #expect(started.isSet)
        #expect(attempt.isCancelled)
    }
}
