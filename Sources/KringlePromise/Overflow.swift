import Dispatch

/// The rarely needed part of a promise's state: more than one observer, drains on more than
/// one queue, cancel handlers, a waiting consumer's claim, more than one dependency.
///
/// The client's promises need it on every request (a transport's promise has a cancel
/// handler and an observer, a promise a consumer waits for has its claim and the consumer's
/// wake-up), so it keeps a first observer and a first cancel handler in fields of their own:
/// a request allocates the overflow, but none of its arrays.
// Guarded by the owning promise's lock (details below).
final class Overflow: @unchecked Sendable {
    // Unchecked because it is only touched with the owning promise's lock held, or by its
    // `deinit`. `@exclusivity(unchecked)` for the same reason as in `Promise`.

    /// The observers, in registration order: `first`, then `rest` from `restStart` on (those
    /// before it were removed). After the settlement, those still waiting for their queue's
    /// drain. An observer goes to `first` only when there is none waiting (so `first` is
    /// always the oldest).
    @exclusivity(unchecked) var first: Observer?
    @exclusivity(unchecked) var rest: [Observer] = []
    @exclusivity(unchecked) var restStart = 0
    /// The queue of the primary drain, whose job captures only the promise, while it is under
    /// way.
    @exclusivity(unchecked) var primaryQueue: DispatchQueue?
    /// The queues of the drains other than the primary one; their jobs carry their queue.
    @exclusivity(unchecked) var otherQueues: [DispatchQueue] = []
    /// What the producer asked to do if the promise is cancelled, in order: the first, then
    /// the others.
    @exclusivity(unchecked) var firstCancelHandler: CancelHandler?
    @exclusivity(unchecked) var cancelHandlers: [CancelHandler] = []
    /// The consumer that runs the job settling the promise itself, if one claimed it (see
    /// `Claim`).
    @exclusivity(unchecked) var claim: Claim?
    /// The dependencies after `Promise.dependency`.
    @exclusivity(unchecked) var dependencies: [WeakNode] = []

    init(first: consuming Observer?) {
        self.first = first
    }

    /// Whether no observer is waiting.
    var hasNoObservers: Bool {
        first == nil && restStart == rest.count
    }

    /// The observers waiting, in order, taken out.
    func takeObservers() -> [Observer] {
        var taken: [Observer] = []
        if let first = first.take() { taken.append(first) }
        taken += rest[restStart...]
        rest = []
        restStart = 0
        return taken
    }

    /// Registers `observer` after the others.
    func append(_ observer: consuming Observer) {
        if hasNoObservers {
            first = observer
        } else {
            rest.append(observer)
        }
    }

    /// Registers a cancel handler after the others.
    func append(_ handler: consuming CancelHandler) {
        if firstCancelHandler == nil, cancelHandlers.isEmpty {
            firstCancelHandler = handler
        } else {
            cancelHandlers.append(handler)
        }
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
        append(observer)
        return kind
    }

    /// The next reaction of the drain for `assigned` (`nil`: the primary drain), or `nil`,
    /// ending that drain, when none is left.
    func next(for assigned: DispatchQueue?) -> Reaction? {
        guard let queue = assigned ?? primaryQueue else { return nil }
        if first?.queue === queue { return first.take()!.reaction }
        if let index = rest[restStart...].firstIndex(where: { $0.queue === queue }) {
            let observer = rest[index]
            if index == restStart {
                // The usual case, even with many handlers: they are all for one queue.
                restStart += 1
            } else {
                rest.remove(at: index)
            }
            if restStart == rest.count {
                rest = []
                restStart = 0
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
    /// registration order, then any cancel handler after the first; and the first cancel
    /// handler. The usual overflow, one observer and one cancel handler at most, sets them
    /// off without an array.
    func takeWakeUps() -> PromiseState.Settled {
        let firstCancelHandler = self.firstCancelHandler.take()
        if rest.isEmpty, cancelHandlers.isEmpty {
            guard let observer = first else { return (.none, firstCancelHandler) }
            guard let queue = observer.queue else {
                first = nil
                return (.inline(observer.reaction), firstCancelHandler)
            }
            // It stays, for its drain, which is the first one: the primary.
            primaryQueue = queue
            return (.drain(Drain(queue: queue, kind: .primary)), firstCancelHandler)
        }
        var wakeUps: [WakeUp] = []
        for observer in takeObservers() {
            guard let queue = observer.queue else {
                wakeUps.append(.inline(observer.reaction))
                continue
            }
            append(observer)
            if let kind = activate(queue) { wakeUps.append(.drain(Drain(queue: queue, kind: kind))) }
        }
        wakeUps += cancelHandlers.map(WakeUp.cancelHandler)
        cancelHandlers = []
        return (.many(wakeUps), firstCancelHandler)
    }
}
