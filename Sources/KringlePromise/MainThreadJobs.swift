import Dispatch
import Foundation

/// Promise handlers bound for the main queue, runnable by whoever gets to them first on the
/// main thread: the main queue itself, or a ``Promise/wait(timeout:)`` blocking the main
/// thread.
///
/// Without this, a script that calls `wait()` on the main thread for a chain with handlers
/// on `DispatchQueue.main` would deadlock: the main queue only runs when the main thread is
/// free, and inside a main-queue block (async top-level code, `MainActor`) not even a nested
/// run loop drains it. The main thread is one per process, so this list is too.
enum MainThreadJobs {
    private struct State: Sendable {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var waiters: [ObjectIdentifier: DispatchSemaphore] = [:]
    }

    private static let state = Locked(State())

    /// Queues `job` to run on the main thread, and wakes the main queue and any waiter.
    static func submit(_ job: @escaping @Sendable () -> Void) {
        let waiters = state.withLock { state in
            state.jobs.append(job)
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.signal() }
        DispatchQueue.main.async { runPending() }
    }

    /// Runs the queued jobs in order; only on the main thread.
    static func runPending() {
        while let job = next() { job() }
    }

    /// Makes `semaphore` signalled whenever a job is queued, while `body` runs.
    static func whileWaking<T>(_ semaphore: DispatchSemaphore, _ body: () throws -> T) rethrows -> T {
        let key = ObjectIdentifier(semaphore)
        state.withLock { $0.waiters[key] = semaphore }
        defer { state.withLock { _ = $0.waiters.removeValue(forKey: key) } }
        return try body()
    }

    private static func next() -> (@Sendable () -> Void)? {
        state.withLock { state in
            guard state.head < state.jobs.count else { return nil }
            let job = state.jobs[state.head]
            state.head += 1
            if state.head == state.jobs.count {
                state.jobs.removeAll(keepingCapacity: true)
                state.head = 0
            }
            return job
        }
    }
}
