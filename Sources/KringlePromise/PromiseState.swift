import Dispatch

/// What a promise keeps besides its outcome; guarded by the promise's lock.
///
/// Sized for the usual promise, kept inline: one observer, then, once the promise has settled,
/// the one drain that runs it. The rest, rarely needed, goes to an `Overflow` allocated on
/// first use: more observers, drains on more than one queue, cancel handlers, a waiting
/// consumer's claim, more dependencies. An enum of four cases in 32 bytes (the spare bits of
/// `Reaction.target` tell them apart), which keeps a promise within 72 bytes (80 allocated).
///
/// Nothing here depends on the promise's value type (a handler reads the outcome itself, see
/// `PromiseHandler`): this bookkeeping is compiled once, not for each caller's type, and the
/// generic `deinit`, which Swift cannot specialise, destroys it without looking up generic
/// metadata.
///
/// The drains (step 4 of the walk at the top of `Promise.swift`): once the promise has
/// settled, every observer left waits for a drain under way on its queue, one per queue. The
/// primary drain's job captures only the promise, and finds its queue here: the queue of
/// ``one(_:)``, of ``draining(_:)``, or `Overflow.primaryQueue`.
enum PromiseState: Sendable {
    /// Nothing: no observer, no drain under way, no overflow.
    case empty
    /// One observer. Before the settlement, the only one; after it, the only one left, and
    /// the primary drain is under way for its queue.
    case one(Observer)
    /// After the settlement: the primary drain is under way for this queue, and no observer
    /// is left for it.
    case draining(DispatchQueue)
    /// Anything else.
    case overflow(Overflow)

    /// What ``takeWakeUps()`` takes out of the state: what to set off, and the first cancel
    /// handler (any others are among the wake-ups), apart, so that the usual settlement needs
    /// no list of wake-ups.
    typealias Settled = (wakeUps: WakeUps, firstCancelHandler: CancelHandler?)

    /// The overflow, if there is one.
    var overflow: Overflow? {
        if case .overflow(let overflow) = self { return overflow }
        return nil
    }

    /// Registers `observer` on a pending promise, after the others.
    mutating func append(_ observer: consuming Observer) {
        switch self {
        case .empty:
            self = .one(observer)
        case .one(let first):
            let overflow = Overflow(first: first)
            overflow.append(observer)
            self = .overflow(overflow)
        case .overflow(let overflow):
            overflow.append(observer)
        case .draining:
            preconditionFailure("a pending promise has no drain")
        }
    }

    /// The overflow of a pending promise, created on first use.
    mutating func extra() -> Overflow {
        switch self {
        case .overflow(let overflow):
            return overflow
        case .empty:
            let created = Overflow(first: nil)
            self = .overflow(created)
            return created
        case .one(let first):
            let created = Overflow(first: first)
            self = .overflow(created)
            return created
        case .draining:
            preconditionFailure("a pending promise has no drain")
        }
    }

    /// Registers `observer`, bound for a queue, on a settled promise, after the others; returns
    /// which drain to start for it, or `nil` when its queue has one under way already (it
    /// will run the observer, in order).
    mutating func appendSettled(_ observer: consuming Observer) -> Drain.Kind? {
        switch self {
        case .empty:
            self = .one(observer)
            return .primary
        case .one(let first):
            let overflow = Overflow(first: first)
            overflow.primaryQueue = first.queue
            self = .overflow(overflow)
            return overflow.appendSettled(observer)
        case .draining(let primaryQueue):
            // Compared, not copied: every job and observer of a queue shares its reference
            // count, so each retain would be a contended write.
            if primaryQueue === observer.queue {
                self = .one(observer)
                return nil
            }
            let overflow = Overflow(first: nil)
            overflow.primaryQueue = primaryQueue
            self = .overflow(overflow)
            return overflow.appendSettled(observer)
        case .overflow(let overflow):
            return overflow.appendSettled(observer)
        }
    }

    /// Takes the next reaction of the drain for `assigned` (`nil`: the primary drain), or ends
    /// that drain when none is left. Called with the lock held.
    mutating func next(for assigned: DispatchQueue?) -> Reaction? {
        switch self {
        case .one(let observer) where assigned == nil:
            // The queue stays, as the drain's, until the drain ends.
            self = .draining(observer.queue!)
            return observer.reaction
        case .draining where assigned == nil:
            self = .empty
            return nil
        case .overflow(let overflow):
            return overflow.next(for: assigned)
        case .empty, .one, .draining:
            return nil
        }
    }

    /// At the settlement: takes out what to set off once the lock is released, starting one
    /// drain per queue that has handlers (step 2 of the walk at the top of `Promise.swift`),
    /// and the cancel handlers, to be run (on a cancellation) or released outside the lock.
    /// Called with the lock held.
    mutating func takeWakeUps() -> Settled {
        switch self {
        case .empty:
            return (.none, nil)
        case .one(let observer):
            // The usual promise: one observer. One on a queue stays, for its drain.
            guard let queue = observer.queue else {
                self = .empty
                return (.inline(observer.reaction), nil)
            }
            return (.drain(Drain(queue: queue, kind: .primary)), nil)
        case .overflow(let overflow):
            return overflow.takeWakeUps()
        case .draining:
            preconditionFailure("a pending promise has no drain")
        }
    }
}
