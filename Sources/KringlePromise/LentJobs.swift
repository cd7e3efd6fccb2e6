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
///
/// One per lending. A release is final: the lending's later handlers send their jobs to the
/// queue at once, as any thread does, since nobody watches that lending any more.
@_spi(KringleInternals)
public final class LentJobs: Sendable {
    /// The jobs set aside: a thread's whole buffer, moved rather than copied, with the jobs
    /// before `next` run already.
    struct Aside: Sendable {
        var jobs: [DeferredPromiseJobs.Job]
        var next: Int
    }

    private enum State: Sendable {
        case empty
        case holding(Aside)
        case released
    }

    private let state = Locked(State.empty)

    /// Creates an empty place to set jobs aside.
    public init() {}

    /// Sends the jobs set aside, if any, back to the promises' queue, where any thread may
    /// run them, and refuses any more.
    public func release() {
        let released = state.withLock { state -> Aside? in
            defer { state = .released }
            guard case .holding(let aside) = state else { return nil }
            return aside
        }
        guard let released else { return }
        for job in released.jobs[released.next...] { JobQueue.promises.submit(job.run) }
    }

    /// Sets `jobs` aside; `false`, setting nothing, while an earlier set is aside or once
    /// released.
    func put(_ jobs: Aside) -> Bool {
        state.withLock { state in
            guard case .empty = state else { return false }
            state = .holding(jobs)
            return true
        }
    }

    /// Takes back what ``put(_:)`` set aside, unless ``release()`` sent it to the queue.
    func take() -> Aside? {
        state.withLock { state in
            guard case .holding(let aside) = state else { return nil }
            state = .empty
            return aside
        }
    }
}
