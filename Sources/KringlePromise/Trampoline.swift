/// A per-thread work list that turns nested calls into a loop: recursion flattening.
///
/// Settling one promise can settle another synchronously (an inline observer: adoption,
/// `all`, `race`, the client's plumbing), and releasing the head of a long pending chain
/// releases the next link from inside `deinit`. Done recursively, a chain of a million
/// promises would overflow the stack; the trampoline runs such nested work after the
/// current piece returns, on the same thread, in order.
///
/// It holds work back only for the library's own steps: user code runs through
/// ``UserCode/run(_:)``, which runs what is queued first and turns the holding back off
/// while the user's closure runs, so that the closure may block on work it started.
///
/// The class is confined to one thread (it lives in the thread's ``PromiseThread``), so it
/// needs no lock.
/// Its properties are `@exclusivity(unchecked)`: it runs once or more per promise, and the
/// run-time exclusivity check would cost a thread-local look-up per access. No access
/// overlaps another: work runs, and objects are released, only outside any array access.
final class Trampoline {
    /// The queued work, from `jobsHead` and `garbageHead` on (the earlier entries are done).
    /// The positions are properties, not locals of `drain()`, so that a drain nested inside
    /// user code (see ``UserCode/run(_:)``) goes on from where the outer one is.
    @exclusivity(unchecked) private var jobs: [Job] = []
    @exclusivity(unchecked) private var jobsHead = 0
    @exclusivity(unchecked) private var garbage: [AnyObject?] = []
    @exclusivity(unchecked) private var garbageHead = 0
    @exclusivity(unchecked) private var isDraining = false

    /// A closure as kept in an array: wrapped, because an array stores a bare closure in its
    /// most abstract form, and converting to and from that form costs a thunk (an
    /// allocation) on every append and every read.
    private struct Job {
        let run: () -> Void
    }

    /// Calls `body` with the calling thread's trampoline (see `PromiseThread`).
    static func withCurrent<T>(_ body: (Trampoline) throws -> T) rethrows -> T {
        try PromiseThread.withCurrent { try body($0.trampoline) }
    }

    /// Runs `job` now, when this thread is draining nothing, and returns `true`; returns
    /// `false`, without running it, while a drain is under way (then ``schedule(_:)`` it).
    ///
    /// The same order as ``schedule(_:)``, without its allocation: a closure that escapes
    /// into the queue is copied to the heap with what it captures (for a promise's inline
    /// observer, the whole result), one that runs at once stays on the stack.
    static func runIfIdle(_ job: () -> Void) -> Bool {
        withCurrent { trampoline in
            guard !trampoline.isDraining else { return false }
            trampoline.isDraining = true
            job()
            // What `job` scheduled, and what it released, waited for the drain.
            trampoline.drain()
            return true
        }
    }

    /// `reaction` for `settled` now or, while a drain is under way, after it:
    /// ``runIfIdle(_:)``, else ``schedule(_:)``.
    static func run(_ reaction: Reaction, on settled: AnyObject) {
        var reaction = reaction
        if !runIfIdle({ reaction.run(settled) }) {
            schedule { [reaction] in
                var reaction = reaction
                reaction.run(settled)
            }
        }
    }

    /// Runs `job` now, or after the work this thread is already draining.
    static func schedule(_ job: @escaping () -> Void) {
        withCurrent { trampoline in
            trampoline.jobs.append(Job(run: job))
            if !trampoline.isDraining { trampoline.drain() }
        }
    }

    /// Releases `object` so that the deinitialisers it sets off run one after another
    /// rather than nested inside each other.
    ///
    /// The parameter is consumed so that the caller keeps no reference: the release really
    /// happens inside the drain loop.
    static func release(_ object: consuming AnyObject?) {
        guard object != nil else { return }
        var object = Optional(consume object)
        withCurrent { trampoline in
            trampoline.garbage.append(object.take()!)
            if !trampoline.isDraining { trampoline.drain() }
        }
    }

    /// For ``UserCode/run(_:)``: runs what this thread has queued, so that nothing the user's
    /// code waits for is held back, and lets work set off from then on run at once. Returns
    /// whether a drain was under way, for ``endUserCode(wasDraining:)``.
    func beginUserCode() -> Bool {
        let wasDraining = isDraining
        // Rare: user code run from the library's bookkeeping (a cancel handler, say).
        if wasDraining { drain() }
        return wasDraining
    }

    /// For ``UserCode/run(_:)``: the user's code has returned; the drain that was under way
    /// before it, if any, goes on holding nested work back.
    func endUserCode(wasDraining: Bool) {
        isDraining = wasDraining
    }

    /// Runs the queued work in order. A job may run user code that drains again (see
    /// ``UserCode/run(_:)``): the nested drain goes on from the same positions, and this one
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
}
