import Foundation
import KringleTestSupport
import Testing

@_spi(KringleInternals) @testable import KringlePromise

/// A consumer waiting for a promise runs the job that settles it (`Claim`,
/// `Promise.mapSuccess(on:consumerMayRun:_:)`) instead of a queue's thread.
@Suite("hand-off of the settling job to the waiting consumer", .generousTimeLimit)
struct HandOffTests {
    /// A source, and its value plus one computed by a `mapSuccess` body that records its
    /// thread.
    private static func mapped(consumerMayRun: Bool) -> (
        source: Promise<Int>, mapped: Promise<Int>, ranOn: Box<pthread_t?>
    ) {
        let source = Promise<Int>.pending()
        let ranOn = Box<pthread_t?>(nil)
        let mapped = source.mapSuccess(
            on: .promises, consumerMayRun: { _ in consumerMayRun },
            { value in
                ranOn.withLock { $0 = pthread_self() }
                return value + 1
            })
        return (source, mapped, ranOn)
    }

    /// Waits until a consumer has claimed `promise`'s job: a condition, yielding between
    /// looks rather than sleeping, bounded only so that a broken claim fails instead of
    /// hanging.
    private static func waitUntilClaimed(_ promise: Promise<Int>) async throws {
        let deadline = Date().addingTimeInterval(60)
        while !promise.isClaimed {
            try #require(Date() < deadline, "no consumer claimed the promise")
            await Task.yield()
        }
    }

    @Test("a thread blocked in wait() runs the job itself")
    func waitRunsTheJob() async throws {
        let (source, mapped, ranOn) = Self.mapped(consumerMayRun: true)
        async let waited = onOwnThread { (try mapped.wait(), pthread_self()) }
        try await Self.waitUntilClaimed(mapped)
        source.fulfill(1)
        let (value, waiter) = try await waited
        #expect(value == 2)
        #expect(ranOn.value.map { pthread_equal($0, waiter) != 0 } == true)
    }

    @Test("a thread blocked in wait() runs the job after a decision to follow another promise")
    func waitRunsTheJobAfterAnAdoption() async throws {
        let source = Promise<Int>.pending()
        let followed = Promise<Int>.pending()
        let ranOn = Box<pthread_t?>(nil)
        let follow: @Sendable (Result<Int, any Error>) throws -> Outcome<Int> = { _ in .adopt(followed) }
        let mayRun: @Sendable (Int) -> Bool = { _ in true }
        let mapped = source.mapSuccess(deciding: follow, on: .promises, consumerMayRun: mayRun) { value in
            ranOn.withLock { $0 = pthread_self() }
            return value + 1
        }
        async let waited = onOwnThread { (try mapped.wait(), pthread_self()) }
        try await Self.waitUntilClaimed(mapped)
        source.fulfill(1)
        followed.fulfill(41)
        let (value, waiter) = try await waited
        #expect(value == 42)
        #expect(ranOn.value.map { pthread_equal($0, waiter) != 0 } == true)
    }

    @Test("a job the consumer may not run goes to its queue")
    func jobsNotHandedOffRunOnTheQueue() async throws {
        let (source, mapped, ranOn) = Self.mapped(consumerMayRun: false)
        async let waited = onOwnThread { (try mapped.wait(), pthread_self()) }
        try await Self.waitUntilClaimed(mapped)
        source.fulfill(1)
        let (value, waiter) = try await waited
        #expect(value == 2)
        #expect(ranOn.value.map { pthread_equal($0, waiter) == 0 } == true)
    }

    @Test("an awaiting task runs the job and gets its value or its error")
    func awaitRunsTheJob() async throws {
        let (source, mapped, ranOn) = Self.mapped(consumerMayRun: true)
        async let value = mapped.value
        try await Self.waitUntilClaimed(mapped)
        source.fulfill(1)
        #expect(try await value == 2)
        #expect(ranOn.value != nil)

        let failing = Promise<Int>.pending()
        let thrown = failing.mapSuccess(
            on: .promises, consumerMayRun: { _ in true }, { _ -> Int in throw TestError(code: 7) })
        let failure = Task { try await thrown.value }
        try await Self.waitUntilClaimed(thrown)
        failing.fulfill(1)
        await #expect(throws: TestError(code: 7)) { try await failure.value }
    }

    @Test("cancelling the awaiting task before the hand-off cancels the promise")
    func cancelledAwait() async throws {
        let (source, mapped, ranOn) = Self.mapped(consumerMayRun: true)
        let task = Task { try await mapped.value }
        try await Self.waitUntilClaimed(mapped)
        task.cancel()
        await #expect(throws: PromiseError.cancelled) { try await task.value }
        source.fulfill(1)
        #expect(mapped.isCancelled)
        #expect(ranOn.value == nil)
    }

    @Test("a waiter that timed out leaves the job to the queue")
    func timedOutWaiter() async throws {
        let (source, mapped, _) = Self.mapped(consumerMayRun: true)
        let outcome = await onOwnThread { Result { try mapped.wait(timeout: 0.01) } }
        #expect(throws: PromiseError.timedOut) { try outcome.get() }
        source.fulfill(1)
        #expect(try await mapped.valueWithin() == 2)
    }

    @Test("an offer made but not taken is returned when the claim closes, and wakes once")
    func claimStateMachine() {
        let wakes = Box(0)
        let claim = Claim { wakes.withLock { $0 += 1 } }
        let ran = Box(false)
        #expect(claim.offer(Claim.Offer(queue: .promises) { ran.withLock { $0 = true } }))
        #expect(!claim.offer(Claim.Offer(queue: .promises) {}), "a second offer is refused")
        claim.close()?.run()
        #expect(ran.value)
        #expect(claim.take() == nil)
        #expect(!claim.offer(Claim.Offer(queue: .promises) {}), "a closed claim takes no offer")
        #expect(wakes.value == 1)
    }
}
