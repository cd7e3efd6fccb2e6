import Dispatch

/// The rarely needed part of a promise's state: more than one observer, drains on more than
/// one queue, cancel handlers, a waiting consumer's claim, more than one dependency.
// Guarded by the owning promise's lock (details below).
final class Overflow: @unchecked Sendable {
    // Unchecked because it is only touched with the owning promise's lock held, or by its
    // `deinit`. `@exclusivity(unchecked)` for the same reason as in `Promise`.

    /// The observers, in registration order, from `observersStart` on (those before it were
    /// removed). After the settlement, those still waiting for their queue's drain.
    @exclusivity(unchecked) var observers: [Observer]
    @exclusivity(unchecked) var observersStart = 0
    /// The queue of the primary drain, whose job captures only the promise, while it is under
    /// way.
    @exclusivity(unchecked) var primaryQueue: DispatchQueue?
    /// The queues of the drains other than the primary one; their jobs carry their queue.
    @exclusivity(unchecked) var otherQueues: [DispatchQueue] = []
    /// What the producer asked to do if the promise is cancelled, in order.
    @exclusivity(unchecked) var cancelHandlers: [CancelHandler] = []
    /// The consumer that runs the job settling the promise itself, if one claimed it (see
    /// `Claim`).
    @exclusivity(unchecked) var claim: Claim?
    /// The dependencies after `Promise.dependency`.
    @exclusivity(unchecked) var dependencies: [WeakNode] = []

    init(observers: [Observer]) {
        self.observers = observers
    }

    /// Records that a drain for `queue` is needed; returns which kind to start, or `nil` when
    /// one is already under way (it will run what was just queued, in order).
    func activate(_ queue: DispatchQueue) -> Drain.Kind? {
        if primaryQueue === queue || otherQueues.contains(where: { $0 === queue }) { return nil }
        if primaryQueue == nil {
            primaryQueue = queue
            return .primary
        }
        otherQueues.append(queue)
        return .other
    }

    /// Registers `observer`, bound for a queue, on a settled promise, after the others; returns
    /// which drain to start for it (see `PromiseState.appendSettled(_:)`).
    func appendSettled(_ observer: consuming Observer) -> Drain.Kind? {
        let kind = activate(observer.queue!)
        observers.append(observer)
        return kind
    }

    /// The next reaction of the drain for `assigned` (`nil`: the primary drain), or `nil`,
    /// ending that drain, when none is left.
    func next(for assigned: DispatchQueue?) -> Reaction? {
        guard let queue = assigned ?? primaryQueue else { return nil }
        if let index = observers[observersStart...].firstIndex(where: { $0.queue === queue }) {
            let observer = observers[index]
            if index == observersStart {
                // The usual case, even with many handlers: they are all for one queue.
                observersStart += 1
            } else {
                observers.remove(at: index)
            }
            if observersStart == observers.count {
                observers = []
                observersStart = 0
            }
            return observer.reaction
        }
        if assigned == nil {
            primaryQueue = nil
        } else if let index = otherQueues.firstIndex(where: { $0 === queue }) {
            otherQueues.remove(at: index)
        }
        return nil
    }

    /// At the settlement: the bookkeeping observers, taken out, and the drains to start, in
    /// registration order; then the cancel handlers, taken out.
    func takeWakeUps() -> WakeUps {
        let registered = observers[observersStart...]
        var queued: [Observer] = []
        var wakeUps: [WakeUp] = []
        for observer in registered {
            guard let queue = observer.queue else {
                wakeUps.append(.inline(observer.reaction))
                continue
            }
            queued.append(observer)
            if let kind = activate(queue) { wakeUps.append(.drain(Drain(queue: queue, kind: kind))) }
        }
        observers = queued
        observersStart = 0
        wakeUps += cancelHandlers.map(WakeUp.cancelHandler)
        cancelHandlers = []
        return .many(wakeUps)
    }
}
