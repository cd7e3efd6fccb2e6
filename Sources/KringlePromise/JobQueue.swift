// Where a consumer that waits runs promise work itself instead of waiting for a queue's
// thread: `JobQueue`, the handler jobs of the main queue and of `.promises`, which any waiter
// may take. (The one job that settles a promise may instead be handed to the consumer
// waiting for that promise: `Claim`, Claim.swift.)

import Dispatch
import Foundation

/// Promise handler jobs for one dispatch queue that a thread blocked in
/// ``Promise/wait(timeout:)`` can run itself instead of waiting for the queue.
///
/// Two queues need it. The main queue only runs when the main thread is free, and inside a
/// main-queue block (async top-level code, `MainActor`) not even a nested run loop drains it,
/// so a script that waits on the main thread for a chain with main-queue handlers would
/// deadlock. And ``Dispatch/DispatchQueue/promises`` has a limited number of worker threads:
/// handlers that block in `wait()` could take them all, leaving none to run the handlers
/// they wait for. Each job is run exactly once, by the queue or by a waiter, whichever
/// takes it first.
final class JobQueue: Sendable {
    typealias Job = @Sendable () -> Void

    private struct State: Sendable {
        /// Wrapped: see `Entry`.
        var jobs: [Entry] = []
        var head = 0
        var waiters: [ObjectIdentifier: WaitWakeUp] = [:]
    }

    /// A job as kept in an array or passed through generic code (`withLock`): wrapped,
    /// because these hold a bare closure in its most abstract form, and converting to and
    /// from that form costs a thunk (an allocation) each time.
    private struct Entry: Sendable {
        let job: Job
    }

    private let state = Locked(State())
    private let queue: DispatchQueue

    /// The main queue's jobs: only ever run on the main thread.
    static let main = JobQueue(queue: .main)
    /// The jobs of ``Dispatch/DispatchQueue/promises``: any thread may run them.
    static let promises = JobQueue(queue: .promises)

    private init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Whether `queue` is the main queue.
    static func isMain(_ queue: DispatchQueue) -> Bool {
        // `DispatchQueue.main` may hand out a new wrapper object on each access, so the main
        // queue is recognised by a marker set on the underlying queue, not by identity.
        queue.getSpecific(key: mainQueueKey) != nil
    }

    /// Whether the caller runs on the main thread or inside a main-queue block (after
    /// `dispatchMain()` on Linux, a worker thread may serve the main queue).
    static var isOnMainQueue: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) != nil
    }

    private static let mainQueueKey: DispatchSpecificKey<MainQueueMarker> = {
        let key = DispatchSpecificKey<MainQueueMarker>()
        DispatchQueue.main.setSpecific(key: key, value: MainQueueMarker())
        return key
    }()

    private final class MainQueueMarker: Sendable {}

    /// Runs `job` asynchronously on `queue` as a block of its own, out of reach of threads
    /// blocked in `wait()`: for work that may take long (decoding a response), which a
    /// waiter must not take on for another chain.
    ///
    /// `job` goes to the queue as it is: one for ``Dispatch/DispatchQueue/promises`` runs
    /// itself as a promise job (`DeferredPromiseJobs.runAsJob(of:_:)`), so that the handlers it sets
    /// off on that queue follow it on the same thread. Wrapping it here would cost a closure
    /// context on every decode.
    static func asyncUnshared(on queue: DispatchQueue, _ job: @escaping Job) {
        // Set off on a transport's driving thread lent to the promises' queue: run next on
        // that thread, which is no waiter.
        if queue === DispatchQueue.promises, DeferredPromiseJobs.keepIfLent(job) { return }
        queue.async(execute: job)
    }

    /// Queues `job`, asks the dispatch queue to run it, and wakes every waiter.
    func submit(_ job: @escaping Job) {
        let waiters = state.withLock { state in
            state.jobs.append(Entry(job: job))
            return state.waiters.isEmpty ? [] : Array(state.waiters.values)
        }
        for waiter in waiters { waiter.signal() }
        queue.async { _ = self.runOne() }
    }

    /// Runs the oldest queued job, if any; returns whether there was one.
    func runOne() -> Bool {
        guard let job = next() else { return false }
        DeferredPromiseJobs.runAsJob(of: queue, job)
        return true
    }

    /// Makes `wakeUp` signalled whenever a job is queued on any of `queues`, while `body`
    /// runs.
    static func whileWaking<T>(_ wakeUp: WaitWakeUp, on queues: [JobQueue], _ body: () throws -> T) rethrows -> T {
        let key = ObjectIdentifier(wakeUp)
        for queue in queues { queue.state.withLock { $0.waiters[key] = wakeUp } }
        defer {
            for queue in queues { queue.state.withLock { _ = $0.waiters.removeValue(forKey: key) } }
        }
        return try body()
    }

    private func next() -> Job? {
        // The entry, not the bare job, comes out of `withLock`: see `Entry`.
        let entry: Entry? = state.withLock { state in
            guard state.head < state.jobs.count else { return nil }
            let entry = state.jobs[state.head]
            state.jobs[state.head] = Entry(job: {})
            state.head += 1
            if state.head == state.jobs.count {
                state.jobs.removeAll(keepingCapacity: state.jobs.capacity <= 1024)
                state.head = 0
            }
            return entry
        }
        return entry?.job
    }
}
