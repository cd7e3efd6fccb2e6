import Dispatch

/// The rarely needed part of a promise's state: more than one observer, drains on more than
/// one queue, cancel handlers after the first, more than one dependency.
// Guarded by the owning promise's lock (details below).
final class Overflow: @unchecked Sendable {
    // Unchecked because it is only touched with the owning promise's lock held, or by its
    // `deinit`. `@exclusivity(unchecked)` for the same reason as in `Promise`.

    /// The observers after `PromiseState.first`, from `observersStart` on (those before it
    /// were removed).
    @exclusivity(unchecked) var observers: [Observer] = []
    @exclusivity(unchecked) var observersStart = 0
    /// The queues of the drains other than the primary one; their jobs carry their queue.
    @exclusivity(unchecked) var otherQueues: [DispatchQueue] = []
    /// What the producer asked to do if the promise is cancelled, after
    /// `PromiseState.firstCancelHandler`.
    @exclusivity(unchecked) var cancelHandlers: [CancelHandler] = []
    /// The dependencies after `Promise.dependency`.
    @exclusivity(unchecked) var dependencies: [WeakNode] = []

    func removeFirstObserver(on queue: DispatchQueue?) -> Observer? {
        guard let index = observers[observersStart...].firstIndex(where: { $0.queue === queue }) else { return nil }
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
        return observer
    }
}
