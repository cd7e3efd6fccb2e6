import Dispatch

/// What a promise keeps besides its outcome; guarded by the promise's lock.
///
/// Sized for the usual promise: one observer and one drain at a time, kept inline. The rest,
/// rarely needed, goes to an `Overflow` allocated on first use. Nothing here depends on the
/// promise's value type (a handler reads the outcome itself, see `PromiseHandler`): this
/// bookkeeping is compiled once, not for each caller's type, and the generic `deinit`, which
/// Swift cannot specialise, destroys it without looking up generic metadata.
struct PromiseState: Sendable {
    /// What ``PromiseState/takeWakeUps()`` takes out of the state: what to set off, and the first
    /// cancel handler (any others are among the wake-ups).
    typealias Settled = (wakeUps: WakeUps, firstCancelHandler: CancelHandler?)

    /// The observer registered first, if not yet removed. Before the settlement, the
    /// observers are, in registration order, `first` then `overflow.observers`; after it, the
    /// handlers still to run on queues whose drain is under way.
    var first: Observer?
    /// The queue of the drain started first (of those still running). Its job captures only
    /// the promise, so starting it allocates nothing; it reads its queue from here.
    var primaryQueue: DispatchQueue?
    var overflow: Overflow?
    /// The consumer that runs the job settling the promise itself, if one claimed it. Kept
    /// here rather than in the overflow, at a word in every promise: a consumer blocked in
    /// `wait()` or awaiting `value` claims every promise it waits for, and an overflow costs
    /// an allocation.
    var claim: Claim?
    /// The cancel handler registered first; any others are in `overflow`. Kept here for the
    /// same reason as `claim`: a transport registers one on the promise of every request it
    /// sends. (One word: `CancelHandler` is a class.)
    var firstCancelHandler: CancelHandler?

    var hasObservers: Bool {
        first != nil || overflow.map { $0.observersStart < $0.observers.count } ?? false
    }

    mutating func append(_ observer: consuming Observer) {
        if hasObservers {
            extra().observers.append(observer)
        } else {
            first = observer
        }
    }

    /// The overflow, created on first use.
    mutating func extra() -> Overflow {
        if let overflow { return overflow }
        let created = Overflow()
        overflow = created
        return created
    }

    /// Calls `body` with each observer, in order.
    func forEachObserver(_ body: (Observer) -> Void) {
        if let first { body(first) }
        guard let overflow else { return }
        for index in overflow.observersStart..<overflow.observers.count { body(overflow.observers[index]) }
    }

    /// Records that a drain for `queue` is needed; returns which kind to start, or `nil` when
    /// one is already under way (it will run what was just queued, in order).
    mutating func activate(_ queue: DispatchQueue) -> Drain.Kind? {
        if primaryQueue === queue || overflow?.otherQueues.contains(where: { $0 === queue }) == true { return nil }
        if primaryQueue == nil {
            primaryQueue = queue
            return .primary
        }
        extra().otherQueues.append(queue)
        return .other
    }

    /// Takes the next observer of the drain for `assigned` (`nil`: the primary drain), or ends
    /// that drain when none is left. Called with the lock held.
    ///
    /// Written to compare queues without copying them: every job and observer of a queue
    /// shares its reference count, so each retain would be a contended write.
    mutating func next(for assigned: DispatchQueue?) -> Observer? {
        guard let assigned else {
            guard primaryQueue != nil else { return nil }
            if first?.queue === primaryQueue { return first.take() }
            if let observer = overflow?.removeFirstObserver(on: primaryQueue) { return observer }
            primaryQueue = nil
            return nil
        }
        if first?.queue === assigned { return first.take() }
        guard let overflow else { return nil }
        if let observer = overflow.removeFirstObserver(on: assigned) { return observer }
        if let index = overflow.otherQueues.firstIndex(where: { $0 === assigned }) {
            overflow.otherQueues.remove(at: index)
        }
        return nil
    }

    /// At the settlement: takes out what to set off once the lock is released, starting one
    /// drain per queue that has handlers (step 2 of the walk at the top of `Promise.swift`).
    /// Called with the lock held.
    ///
    /// The cancel handlers are taken out too, to be run (on a cancellation) or released
    /// outside the lock: a first one apart, so that a transport's promise, which holds one,
    /// needs no list of wake-ups built for it alone; any others among the wake-ups.
    mutating func takeWakeUps() -> Settled {
        let wakeUps = wakeUpsForObservers()
        let firstCancelHandler = self.firstCancelHandler.take()
        guard let overflow, !overflow.cancelHandlers.isEmpty else { return (wakeUps, firstCancelHandler) }
        var all: [WakeUp]
        switch wakeUps {
        case .none: all = []
        case .drain(let drain): all = [.drain(drain)]
        case .inline(let handler): all = [.inline(Observer(queue: nil, handler: handler))]
        case .many(let list): all = list
        }
        all += overflow.cancelHandlers.map(WakeUp.cancelHandler)
        overflow.cancelHandlers = []
        return (.many(all), firstCancelHandler)
    }

    /// The bookkeeping observers, taken out, and the drains to start, in registration order.
    mutating func wakeUpsForObservers() -> WakeUps {
        if overflow == nil {
            // The usual promise: no observer, or one.
            guard let observer = first.take() else { return .none }
            guard let queue = observer.queue else { return .inline(observer.handler) }
            first = observer
            guard let kind = activate(queue) else { return .none }
            return .drain(Drain(queue: queue, kind: kind))
        }
        var observers: [Observer] = []
        forEachObserver { observers.append($0) }
        first = nil
        var queued: [Observer] = []
        var wakeUps: [WakeUp] = []
        for observer in observers {
            guard let queue = observer.queue else {
                wakeUps.append(.inline(observer))
                continue
            }
            queued.append(observer)
            if let kind = activate(queue) { wakeUps.append(.drain(Drain(queue: queue, kind: kind))) }
        }
        if let overflow {
            overflow.observers = queued
            overflow.observersStart = 0
        }
        return .many(wakeUps)
    }
}
