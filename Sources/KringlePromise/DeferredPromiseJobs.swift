import Dispatch

/// The jobs for ``Dispatch/DispatchQueue/promises`` that a job of that queue set off, kept
/// for the same thread to run once that job has returned.
///
/// A handler that settles the next link of a chain would otherwise hop through the dispatch
/// queue once per link; running the follow-up here, after the handler has returned, keeps
/// handlers asynchronous and ordered while a long chain runs as a loop on one worker. Only
/// the library's own follow-up is kept: while user code runs (``UserCode/run(_:)``) nothing
/// is, and what was kept goes back to the queue, so that the user's code may block on it.
///
/// The class is confined to one thread (it lives in the thread's ``PromiseThread``), so it
/// needs no lock;
/// `@exclusivity(unchecked)` for the reason given at ``Trampoline``.
@usableFromInline
final class DeferredPromiseJobs {
    /// The kept jobs, from `head` on (the earlier ones have run). The position is a
    /// property, not a local, because a job may run the kept jobs again (from `wait()`): the
    /// nested run goes on from where the outer one is.
    @exclusivity(unchecked) private var jobs: [Job] = []
    @exclusivity(unchecked) private var head = 0
    /// Whether this thread is running a job of the promises' queue (and not user code).
    @exclusivity(unchecked) private var isRunningPromiseJob = false
    /// Whether this thread is a transport's driving thread lent to the promises' queue
    /// (`DispatchQueue.runLentToPromises(setAside:_:)`), which keeps even the jobs meant for a worker.
    @exclusivity(unchecked) private var isLent = false
    /// Where a lent thread sets its kept jobs aside while user code runs, instead of
    /// sending them back to the queue (see ``LentJobs``).
    @exclusivity(unchecked) private var lentJobs: LentJobs?
    /// Whether the user code running now had jobs set aside in ``lentJobs``.
    @exclusivity(unchecked) private var hasJobsAside = false

    /// Wrapped for the reason given at `Trampoline.Job`.
    struct Job: Sendable {
        let run: @Sendable () -> Void
    }

    /// Calls `body` with the calling thread's kept jobs (see `PromiseThread`).
    static func withCurrent<T>(_ body: (DeferredPromiseJobs) throws -> T) rethrows -> T {
        try PromiseThread.withCurrent { try body($0.deferredJobs) }
    }

    /// How many kept jobs one worker runs in a row (about a millisecond's worth) before
    /// handing the rest back to the queue.
    private static let jobsPerTurn = 1024

    /// Runs `job` as a job of `queue`: for the promises' queue, with the jobs it sets off on
    /// that queue kept and run here after it; for any other queue, as it is.
    ///
    /// How every job of a queue runs, whoever runs it: the queue itself, or a thread that
    /// helps while it waits (`JobQueue.runOne()`, a `Claim`'s offer).
    @usableFromInline
    static func runAsJob(of queue: DispatchQueue, _ job: () -> Void) {
        guard queue === DispatchQueue.promises else { return job() }
        withCurrent { deferred in
            guard !deferred.isRunningPromiseJob else { return job() }
            deferred.isRunningPromiseJob = true
            job()
            deferred.runKeptJobs()
            deferred.isRunningPromiseJob = false
        }
    }

    /// Keeps `job`, a job for the promises' queue, for this thread to run once the promise
    /// job it is running returns; `false` when it runs none (or is running user code), and
    /// the caller must queue `job` itself.
    static func keep(_ job: @escaping @Sendable () -> Void) -> Bool {
        withCurrent { deferred in
            guard deferred.isRunningPromiseJob else { return false }
            deferred.jobs.append(Job(run: job))
            return true
        }
    }

    /// Keeps `job`, a job for the promises' queue, as ``keep(_:)`` does, or, when this thread
    /// keeps none, sends it to `JobQueue.promises`: the job is moved, not copied (a retain of
    /// the promise it holds, which is often one a weak dependency points to: a look-up of its
    /// side table).
    static func keepOrSubmit(_ job: consuming @escaping @Sendable () -> Void) {
        var job = Optional(Job(run: job))
        let kept = withCurrent { deferred -> Bool in
            guard deferred.isRunningPromiseJob else { return false }
            deferred.jobs.append(job.take()!)
            return true
        }
        if !kept { JobQueue.promises.submit(job.take()!.run) }
    }

    /// Keeps `job`, one that must not go to a thread blocked in `wait()`, if this thread is
    /// lent to the promises' queue and running a job of it; `false` otherwise.
    static func keepIfLent(_ job: @escaping @Sendable () -> Void) -> Bool {
        withCurrent { deferred in
            guard deferred.isLent, deferred.isRunningPromiseJob else { return false }
            deferred.jobs.append(Job(run: job))
            return true
        }
    }

    /// Runs `body` as a job of the promises' queue on a thread lent to it, setting kept jobs
    /// aside in `lentJobs` while user code runs.
    static func runLent(setAside lentJobs: LentJobs?, _ body: () -> Void) {
        // Restored after, not cleared: a lent thread's handler may wait() for a response that
        // this thread then settles, lent again (``PromiseWaitAssistant``).
        let outer = withCurrent { deferred -> (Bool, LentJobs?) in
            defer {
                deferred.isLent = true
                deferred.lentJobs = lentJobs
            }
            return (deferred.isLent, deferred.lentJobs)
        }
        runAsJob(of: .promises, body)
        withCurrent {
            $0.isLent = outer.0
            $0.lentJobs = outer.1
        }
    }

    /// Runs the jobs this thread has kept (a thread about to block must not sit on them), and
    /// sends back to the queue those it set aside.
    static func runKeptJobs() {
        withCurrent { deferred in
            if deferred.hasJobsAside { deferred.lentJobs?.release() }
            deferred.runKeptJobs()
        }
    }

    /// What ``beginUserCode()`` changed, for ``endUserCode(_:)`` to undo.
    struct UserCodeEntry {
        /// Whether this thread was running a promise job.
        let wasRunningPromiseJob: Bool
        /// Whether the kept jobs went to ``lentJobs`` rather than to the queue.
        let setJobsAside: Bool
    }

    /// For ``UserCode/run(_:)``: sends the kept jobs back to the queue, where other threads
    /// run them (or, on a lent thread, sets them aside: ``LentJobs``), and keeps none until
    /// ``endUserCode(_:)``.
    func beginUserCode() -> UserCodeEntry {
        let wasRunningPromiseJob = isRunningPromiseJob
        var setJobsAside = false
        // Rare but for a lent thread, which settles a batch: several handlers in one drain.
        if head < jobs.count {
            setJobsAside = setAside()
            if !setJobsAside { handBack() }
        }
        isRunningPromiseJob = false
        return UserCodeEntry(wasRunningPromiseJob: wasRunningPromiseJob, setJobsAside: setJobsAside)
    }

    /// For ``UserCode/run(_:)``: the user's code has returned; the library's follow-up is
    /// kept again if it was before, the jobs set aside for it first, unless the lender sent
    /// them to the queue meanwhile.
    func endUserCode(_ entry: UserCodeEntry) {
        if entry.setJobsAside {
            hasJobsAside = false
            if let aside = lentJobs?.take() {
                if head == jobs.count {
                    // As always: the code kept nothing, and the buffer comes back as it went.
                    jobs = aside.jobs
                    head = aside.next
                } else {
                    jobs.insert(contentsOf: aside.jobs[aside.next...], at: head)
                }
            }
        }
        isRunningPromiseJob = entry.wasRunningPromiseJob
    }

    /// On a lent thread, moves the kept jobs not yet run to ``lentJobs``; `false` elsewhere,
    /// and while jobs of an outer handler are aside (user code that runs kept jobs, in
    /// `wait()`, and calls user code again).
    private func setAside() -> Bool {
        guard isLent, !hasJobsAside, let lentJobs else { return false }
        var moved: [Job] = []
        swap(&moved, &jobs)
        guard lentJobs.put(LentJobs.Aside(jobs: moved, next: head)) else {
            swap(&moved, &jobs)
            return false
        }
        head = 0
        hasJobsAside = true
        return true
    }

    /// Runs the kept jobs in order, jobs kept meanwhile included.
    private func runKeptJobs() {
        var ran = 0
        while head < jobs.count {
            if ran == Self.jobsPerTurn {
                // A long chain must not keep this worker for seconds: the global queues'
                // few threads serve the rest of the process too. The rest goes back to the
                // queue, behind whatever else is waiting.
                handBack()
                return
            }
            ran += 1
            // Move the job out (no retain), so that what it holds is freed as soon as it
            // has run rather than when the whole chain has.
            var job = Job(run: {})
            swap(&job, &jobs[head])
            head += 1
            if head == jobs.count {
                // A chain keeps one job at a time: start over rather than grow the array to
                // the chain's length.
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            job.run()
        }
        // Keep a small buffer for the next burst, but give back what a big one grew.
        if jobs.capacity > 256 { jobs = [] }
    }

    /// Sends the kept jobs not yet run back to the promises' queue, where any thread may
    /// take them, behind whatever else is waiting.
    private func handBack() {
        let rest = jobs[head...].map(\.run)
        // Keep a small buffer for the next burst, but give back what a big one grew.
        jobs.removeAll(keepingCapacity: jobs.capacity <= 256)
        head = 0
        for job in rest { JobQueue.promises.submit(job) }
    }
}

extension DispatchQueue {
    /// Runs `body` on this thread as a job of the promises' queue, lent to it: the jobs it
    /// sets off on that queue (the client's decode included, which a thread blocked in
    /// `wait()` is never given) run here once it returns, as they do after a handler.
    ///
    /// For a transport's driving thread, which settles responses and then runs what follows
    /// rather than wake a worker for it.
    ///
    /// - Parameters:
    ///   - lentJobs: where the jobs other responses set off wait while user code runs, rather
    ///     than go to the queue; the lender calls ``LentJobs/release()`` when the lending
    ///     lasts too long. `nil` sends them to the queue.
    ///   - body: settles the responses.
    @_spi(KringleInternals)
    public static func runLentToPromises(setAside lentJobs: LentJobs? = nil, _ body: () -> Void) {
        DeferredPromiseJobs.runLent(setAside: lentJobs, body)
    }
}
