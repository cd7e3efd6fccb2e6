import Foundation
import KringlePromise
import KringleTestSupport
import Testing

@Suite("async/await and wait() bridges", .generousTimeLimit)
struct BridgeTests {
    @Test func awaitingTheValue() async throws {
        #expect(try await Promise(1).map { $0 + 1 }.value == 2)
        await #expect(throws: TestError(code: 3)) { try await Promise<Int>(error: TestError(code: 3)).value }
    }

    @Test func cancellingTheAwaitingTaskCancelsThePromise() async throws {
        let promise = Promise<Int>.pending()
        let stopped = Flag()
        promise.onCancel { stopped.set() }
        let task = Task { try await promise.value }
        // Cancelled before or while it awaits: either way the promise is cancelled.
        task.cancel()
        await #expect(throws: PromiseError.cancelled) { try await task.value }
        #expect(stopped.isSet)
    }

    @Test func promiseFromAsyncWork() async throws {
        let promise = Promise {
            await Task.yield()
            return 5
        }
        // A bound, not a measurement: the Task may start late on a loaded machine.
        #expect(try await promise.valueWithin(120) == 5)
        let failing = Promise<Int> { throw TestError(code: 2) }
        let outcome = await failing.outcome()
        #expect(throws: TestError(code: 2)) { try outcome.get() }
    }

    @Test func cancellingAnAsyncPromiseCancelsItsTask() async throws {
        let sawCancellation = Flag()
        let started = Flag()
        let promise = Promise {
            started.set()
            do {
                // Work that only ends by being cancelled.
                try await Task.sleep(nanoseconds: 60_000_000_000)
            } catch {
                sawCancellation.set()
                throw error
            }
            return 1
        }
        #expect(await eventually { started.isSet })
        promise.cancel()
        #expect(await eventually { sawCancellation.isSet })
    }

    @Test func waitBlocksUntilSettled() async throws {
        let promise = Promise<Int>.pending()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { promise.fulfill(4) }
        let doubled = promise.map { $0 * 2 }
        #expect(try await onOwnThread { try doubled.wait(timeout: 10) } == 8)
        await #expect(throws: TestError(code: 1)) {
            try await onOwnThread { try Promise<Int>(error: TestError(code: 1)).wait() }
        }
    }

    @Test func waitTimesOut() async {
        await #expect(throws: PromiseError.timedOut) {
            try await onOwnThread { try Promise<Int>.pending().wait(timeout: 0.05) }
        }
    }

    @Test("wait() on the main thread runs handlers bound for the main queue")
    func waitOnMainThreadWithMainQueueHandlers() async throws {
        // After `dispatchMain()` a worker thread may serve the main queue on Linux, so the
        // handlers check the queue, not the thread.
        let mainKey = DispatchSpecificKey<Int>()
        DispatchQueue.main.setSpecific(key: mainKey, value: 1)
        let outcome = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Int, any Error>, Never>) in
            DispatchQueue.main.async {
                let onMain = Promise(20).map(on: .main) { value in
                    DispatchQueue.getSpecific(key: mainKey) == 1 ? value + 1 : -1
                }
                let doubled = onMain.delay(0.01).map(on: .main) { value in value * 2 }
                continuation.resume(returning: Result { try doubled.wait(timeout: 10) })
            }
        }
        #expect(try outcome.get() == 42)
    }

    @Test("wait() inside a handler, then more work from the same handler: nothing is lost")
    func handlerThatWaitsThenSettlesMore() async throws {
        // The second `then` runs as a follow-up job on the worker that ran the first; its
        // `wait()` runs the jobs queued so far, and the job that `later.fulfill` queues
        // after that must still run.
        let later = Promise<Int>.pending()
        let ran = later.map { $0 + 1 }
        let outer = Promise(1).map { $0 }.map { value in
            let doubled = try Promise(value).map { $0 * 2 }.wait(timeout: 10)
            later.fulfill(doubled)
            return doubled
        }
        #expect(try await outer.valueWithin() == 2)
        #expect(try await ran.valueWithin() == 3)
    }

    @Test("wait() inside handlers on the library's own queue does not deadlock")
    func waitInsideDefaultQueueHandlers() async throws {
        let count = 64
        @Sendable func blockingStep(_ value: Int) throws -> Int {
            let inner = Promise(value).map { $0 + 1 }.delay(0.01)
            return try inner.map { $0 * 2 }.wait(timeout: 20)
        }
        let outer: [Promise<Int>] = (0..<count).map { index in
            Promise(index).map { value in try blockingStep(value) }
        }
        let values = try await Promise.all(outer).valueWithin(30)
        #expect(values == (0..<count).map { ($0 + 1) * 2 })
    }
}
