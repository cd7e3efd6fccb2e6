// The one job that settles a promise, handed to the consumer waiting for that promise
// rather than to a queue's thread.

import Dispatch

/// A consumer's standing offer to run, itself, the job that settles the promise it waits
/// for: a thread blocked in ``Promise/wait(timeout:)`` or a task awaiting
/// ``Promise/value``.
///
/// Such a consumer is woken when the promise settles anyway. If the job that settles it
/// (a small decode, say) would otherwise go to a queue, the queue wakes a thread of its own
/// for it first, and the consumer is woken second: handing the job to the consumer saves that
/// wake-up. Whoever makes the job offers it with ``Promise/handOff(_:)`` and queues it
/// itself when that returns `false`.
///
/// The claim is woken at most once: by an offer, or by ``close()`` when the promise settled
/// first.
// Guarded by `lock`: `state` is only touched with it held.
final class Claim: @unchecked Sendable {
    /// A job that settles the claimed promise when run, with the queue it was bound for.
    /// The job runs as a job of that queue by itself (as for `JobQueue.asyncUnshared`).
    struct Offer: Sendable {
        let queue: DispatchQueue
        let job: @Sendable () -> Void

        /// Runs the job here, as the queue would.
        func run() {
            job()
        }

        /// Sends the job to its queue after all: its consumer left without running it.
        func dispatch() {
            JobQueue.asyncUnshared(on: queue, job)
        }
    }

    private enum State {
        case open
        case offered(Offer)
        case closed
    }

    // The promises' lock rather than a bare `Mutex`: ThreadSanitizer builds announce its
    // critical sections to the sanitizer, which cannot see a contended `Mutex`.
    private let lock = PromiseLock(())
    @exclusivity(unchecked) private var state = State.open
    private let wake: @Sendable () -> Void

    /// - Parameter wake: Called once, on the thread that offers the job or closes the claim.
    init(wake: @escaping @Sendable () -> Void) {
        self.wake = wake
    }

    /// Takes `offer` and wakes the consumer, unless the claim is closed.
    func offer(_ offer: Offer) -> Bool {
        let taken = lock.withLock { _ in
            guard case .open = state else { return false }
            state = .offered(offer)
            return true
        }
        if taken { wake() }
        return taken
    }

    /// The offered job, for the consumer to run; `nil` when none was offered.
    func take() -> Offer? {
        lock.withLock { _ in
            guard case .offered(let offer) = state else { return nil }
            state = .closed
            return offer
        }
    }

    /// Closes the claim, waking the consumer if nothing was offered yet; returns an offer
    /// that was made but not taken, which the caller must run or dispatch.
    func close() -> Offer? {
        let (offer, wakes) = lock.withLock { _ -> (Offer?, Bool) in
            defer { state = .closed }
            switch state {
            case .open: return (nil, true)
            case .offered(let offer): return (offer, false)
            case .closed: return (nil, false)
            }
        }
        if wakes { wake() }
        return offer
    }
}

extension Promise {
    /// Registers `claim` as the consumer that runs the job settling this promise, if the
    /// promise is pending and has no such consumer yet (one is enough).
    func register(_ claim: Claim) {
        lock.withLock { _ in
            guard phase.load(ordering: .relaxed) == .pending else { return }
            let overflow = state.extra()
            if overflow.claim == nil { overflow.claim = claim }
        }
    }

    /// Whether a consumer has claimed the job that settles this promise, and not been handed
    /// it yet.
    var isClaimed: Bool {
        lock.withLock { _ in state.overflow?.claim != nil }
    }

    /// Hands `offer`, whose job settles this promise, to the consumer that claimed it;
    /// `false` when there is none, and the caller must queue the job itself.
    func handOff(_ offer: Claim.Offer) -> Bool {
        guard let claim = lock.withLock({ _ in state.overflow?.claim.take() }) else { return false }
        return claim.offer(offer)
    }

    /// Sends `job`, which settles this promise, to `queue` with `JobQueue.asyncUnshared`, or,
    /// when `consumerMayRun`, hands it to the consumer that claimed this promise if there is
    /// one. For `mapSuccess(_:on:)`, which makes the job where the value's type is known.
    @usableFromInline
    func sendSettlingJob(_ job: @escaping @Sendable () -> Void, on queue: DispatchQueue, consumerMayRun: Bool) {
        if consumerMayRun, handOff(Claim.Offer(queue: queue, job: job)) { return }
        JobQueue.asyncUnshared(on: queue, job)
    }
}
