import Dispatch

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A per-thread work list that turns nested calls into a loop.
///
/// Settling one promise can settle another synchronously (adoption, `all`, `race`…), and
/// releasing the head of a long pending chain releases the next link from inside `deinit`.
/// Done recursively, a chain of a million promises would overflow the stack; the trampoline
/// runs such nested work after the current piece returns, on the same thread, in order.
///
/// Both kinds of deferral hold work back only for the library's own steps: user code runs
/// through ``runUserCode(_:)``, which turns them off, so that it may block on work it started.
///
/// The class is confined to one thread (it lives in a thread-local slot), so it needs no lock.
/// Its properties are `@exclusivity(unchecked)`: it runs once or more per promise, and the
/// run-time exclusivity check would cost a thread-local look-up per access. No access
/// overlaps another: work runs, and objects are released, only outside any array access.
@usableFromInline
final class Trampoline {
    /// The queued work, from `jobsHead` and `garbageHead` on (the earlier entries are done).
    /// The positions are properties, not locals of `drain()`, so that a drain nested inside
    /// user code (see ``runUserCode(_:)``) goes on from where the outer one is.
    @exclusivity(unchecked) private var jobs: [Job] = []
    @exclusivity(unchecked) private var jobsHead = 0
    @exclusivity(unchecked) private var garbage: [AnyObject?] = []
    @exclusivity(unchecked) private var garbageHead = 0
    @exclusivity(unchecked) private var isDraining = false
    /// The deferred promise jobs, from `promiseJobsHead` on (the earlier ones have run).
    @exclusivity(unchecked) private var promiseJobs: [PromiseJob] = []
    @exclusivity(unchecked) private var promiseJobsHead = 0
    @exclusivity(unchecked) private var isRunningPromiseJob = false

    /// A closure as kept in an array: wrapped, because an array stores a bare closure in its
    /// most abstract form, and converting to and from that form costs a thunk (an
    /// allocation) on every append and every read.
    private struct Job {
        let run: () -> Void
    }

    private struct PromiseJob {
        let run: @Sendable () -> Void
    }

    /// Runs `job` now, when this thread is draining nothing, and returns `true`; returns
    /// `false`, without running it, while a drain is under way (then ``schedule(_:)`` it).
    ///
    /// The same order as ``schedule(_:)``, without its allocation: a closure that escapes
    /// into the queue is copied to the heap with what it captures (for a promise's inline
    /// observer, the whole result), one that runs at once stays on the stack.
    @usableFromInline
    static func runIfIdle(_ job: () -> Void) -> Bool {
        let trampoline = current
        guard !trampoline.isDraining else { return false }
        trampoline.isDraining = true
        job()
        // What `job` scheduled, and what it released, waited for the drain.
        trampoline.drain()
        return true
    }

    /// `handler(result)` now or, while a drain is under way, after it: ``runIfIdle(_:)``,
    /// else ``schedule(_:)``.
    @inlinable
    static func run<Argument>(_ handler: @escaping (Argument) -> Void, with result: Argument) {
        if !runIfIdle({ handler(result) }) { schedule { handler(result) } }
    }

    /// Runs `job` now, or after the work this thread is already draining.
    @usableFromInline
    static func schedule(_ job: @escaping () -> Void) {
        let trampoline = current
        trampoline.jobs.append(Job(run: job))
        if !trampoline.isDraining { trampoline.drain() }
    }

    /// Releases `object` so that the deinitialisers it sets off run one after another
    /// rather than nested inside each other.
    ///
    /// The parameter is consumed so that the caller keeps no reference: the release really
    /// happens inside the drain loop.
    static func release(_ object: consuming AnyObject?) {
        guard object != nil else { return }
        let trampoline = current
        trampoline.garbage.append(consume object)
        if !trampoline.isDraining { trampoline.drain() }
    }

    /// Runs `job`, a job of ``Dispatch/DispatchQueue/promises``, then the jobs for that
    /// queue that it produced on this thread.
    ///
    /// A handler that settles the next link of a chain would otherwise hop through the
    /// dispatch queue once per link; running the follow-up here, after the handler has
    /// returned, keeps handlers asynchronous and ordered while a long chain runs as a loop.
    private static func runPromiseJob(_ job: () -> Void) {
        let trampoline = current
        guard !trampoline.isRunningPromiseJob else {
            job()
            return
        }
        trampoline.isRunningPromiseJob = true
        job()
        trampoline.runDeferredPromiseJobs()
        trampoline.isRunningPromiseJob = false
    }

    /// Runs `job` as ``runPromiseJob(_:)`` does when `queue` is the promises' queue, and
    /// as it is otherwise: how every job of a queue runs, whether the queue or a waiting
    /// thread runs it (`JobQueue.runOne()`, and the jobs `JobQueue.asyncUnshared` sends as
    /// they are).
    @usableFromInline
    static func runAsJob(of queue: DispatchQueue, _ job: () -> Void) {
        guard queue === DispatchQueue.promises else { return job() }
        runPromiseJob(job)
    }

    /// How many follow-up jobs one worker runs in a row (about a millisecond's worth)
    /// before handing the rest back to the queue.
    private static let deferredJobsPerTurn = 1024

    /// Runs `body`, a closure a user handed to the library, under the one rule for user
    /// code: it may block until promise work it started has run, as on any concurrent queue.
    ///
    /// Every closure that comes from outside the library runs through here: operator
    /// handlers (through `Promise.derive`), `Promise { }` bodies, `retry`'s work and
    /// condition, cancel handlers, the client's decode step. Such code may wait on a
    /// semaphore or a `DispatchGroup` for a handler of a promise it started; so nothing
    /// that handler needs may be kept for this thread until `body` returns:
    /// - promise jobs deferred to this thread earlier go back to the queue, and those that
    ///   `body` sets off are not deferred (other threads run them);
    /// - bookkeeping queued on this thread's trampoline runs first, and what `body` sets off
    ///   runs at once rather than after it.
    ///
    /// Once `body` returns, the library's own follow-up (settling the next link) is deferred
    /// again. One thread-local look-up per call: on the path of every handler.
    @usableFromInline
    static func runUserCode<T>(_ body: () -> T) -> T {
        let trampoline = current
        let wasRunningPromiseJob = trampoline.isRunningPromiseJob
        let wasDraining = trampoline.isDraining
        // Both are rare: several handlers in one drain, user code run from bookkeeping.
        if trampoline.promiseJobsHead < trampoline.promiseJobs.count { trampoline.handBackPromiseJobs() }
        if wasDraining { trampoline.drain() }
        trampoline.isRunningPromiseJob = false
        defer {
            trampoline.isRunningPromiseJob = wasRunningPromiseJob
            trampoline.isDraining = wasDraining
        }
        return body()
    }

    /// Keeps `job` for the promise job running on this thread to run next; returns `false`
    /// when this thread is not running one (or is running user code: ``runUserCode(_:)``).
    static func deferPromiseJob(_ job: @escaping @Sendable () -> Void) -> Bool {
        let trampoline = current
        guard trampoline.isRunningPromiseJob else { return false }
        trampoline.promiseJobs.append(PromiseJob(run: job))
        return true
    }

    /// Runs the promise jobs this thread has deferred (a thread about to block must not
    /// sit on them).
    @usableFromInline
    static func runDeferredPromiseJobs() {
        current.runDeferredPromiseJobs()
    }

    /// Runs the deferred jobs in order. The position is a property, not a local, because a
    /// job may call this again (from `wait()`): the nested run goes on from where this one
    /// is, and jobs deferred after it returns are still run here rather than dropped.
    private func runDeferredPromiseJobs() {
        var ran = 0
        while promiseJobsHead < promiseJobs.count {
            if ran == Self.deferredJobsPerTurn {
                // A long chain must not keep this worker for seconds: the global queues'
                // few threads serve the rest of the process too. The rest goes back to the
                // queue, behind whatever else is waiting.
                handBackPromiseJobs()
                return
            }
            ran += 1
            // Move the job out (no retain), so that what it holds is freed as soon as it
            // has run rather than when the whole chain has.
            var job = PromiseJob(run: {})
            swap(&job, &promiseJobs[promiseJobsHead])
            promiseJobsHead += 1
            if promiseJobsHead == promiseJobs.count {
                // A chain defers one job at a time: start over rather than grow the array
                // to the chain's length.
                promiseJobs.removeAll(keepingCapacity: true)
                promiseJobsHead = 0
            }
            job.run()
        }
        // Keep a small buffer for the next burst, but give back what a big one grew.
        if promiseJobs.capacity > 256 { promiseJobs = [] }
    }

    /// Sends the deferred promise jobs not yet run back to the promises' queue, where any
    /// thread may take them, behind whatever else is waiting.
    private func handBackPromiseJobs() {
        let rest = promiseJobs[promiseJobsHead...].map(\.run)
        // Keep a small buffer for the next burst, but give back what a big one grew.
        promiseJobs.removeAll(keepingCapacity: promiseJobs.capacity <= 256)
        promiseJobsHead = 0
        for job in rest { JobQueue.promises.submit(job) }
    }

    /// Runs the queued work in order. A job may run user code that drains again (see
    /// ``runUserCode(_:)``): the nested drain goes on from the same positions, and this one
    /// then finds the queue empty, or holding only what was queued since.
    private func drain() {
        isDraining = true
        while jobsHead < jobs.count || garbageHead < garbage.count {
            if garbageHead < garbage.count {
                // Take the object out first: releasing it inside the array's write access
                // would let a nested `release` append to the array during that access.
                let object = garbage[garbageHead]
                garbage[garbageHead] = nil
                garbageHead += 1
                withExtendedLifetime(object) {}
                continue
            }
            var job = Job(run: {})
            swap(&job, &jobs[jobsHead])
            jobsHead += 1
            job.run()
        }
        // Keep a small buffer for the next burst, but give back what a huge chain grew.
        jobs.removeAll(keepingCapacity: jobs.capacity <= 256)
        garbage.removeAll(keepingCapacity: garbage.capacity <= 256)
        jobsHead = 0
        garbageHead = 0
        isDraining = false
    }

    private static var current: Trampoline {
        if let existing = pthread_getspecific(trampolineKey) {
            return Unmanaged<Trampoline>.fromOpaque(existing).takeUnretainedValue()
        }
        let created = Trampoline()
        pthread_setspecific(trampolineKey, Unmanaged.passRetained(created).toOpaque())
        return created
    }
}

/// The thread-local slot holding each thread's trampoline; its destructor frees the
/// trampoline when the thread exits.
private let trampolineKey: pthread_key_t = {
    var key = pthread_key_t()
    #if canImport(Darwin)
    pthread_key_create(&key) { Unmanaged<Trampoline>.fromOpaque($0).release() }
    #else
    pthread_key_create(&key) { pointer in
        if let pointer { Unmanaged<Trampoline>.fromOpaque(pointer).release() }
    }
    #endif
    return key
}()
