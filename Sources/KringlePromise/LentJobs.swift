import Dispatch

/// The promise jobs a thread lent to the promises' queue set aside while it runs user code
/// (`DispatchQueue.runLentToPromises(setAside:_:)`), for it to run on once that code returns,
/// or for the lender to send back to the queue when the code takes too long.
///
/// A transport's driving thread settles a batch of responses and runs what follows each
/// (decode, `done`, the next request) itself. The rule for user code (``UserCode``) would send
/// every other response's follow-up to the queue as soon as the first handler starts, waking
/// workers that run them beside the driving thread: with 8 requests in flight that cost a
/// fifth of a request's CPU (issue 43). So a lent thread sets them aside here instead, and
/// keeps its promise to the rule through the lender: a handler that blocks on what those
/// jobs would do is unblocked when the lender's watch, within a tick, calls ``release()``.
@_spi(KringleInternals)
public final class LentJobs: Sendable {
    /// The jobs set aside: a thread's whole buffer, moved rather than copied, with the jobs
    /// before `next` run already.
    struct Aside: Sendable {
        var jobs: [DeferredPromiseJobs.Job]
        var next: Int
    }

    private let aside = Locked<Aside?>(nil)

    /// Creates an empty place to set jobs aside.
    public init() {}

    /// Sends the jobs set aside, if any, back to the promises' queue, where any thread may
    /// run them.
    public func release() {
        guard let released = aside.withLock({ $0.take() }) else { return }
        for job in released.jobs[released.next...] { JobQueue.promises.submit(job.run) }
    }

    /// Sets `jobs` aside; `false`, setting nothing, while an earlier set is still aside.
    func put(_ jobs: Aside) -> Bool {
        aside.withLock { aside in
            guard aside == nil else { return false }
            aside = jobs
            return true
        }
    }

    /// Takes back what ``put(_:)`` set aside, unless ``release()`` sent it to the queue.
    func take() -> Aside? {
        aside.withLock { $0.take() }
    }
}
