import Foundation

extension Promise {
    /// Rejects with ``PromiseError/timedOut`` if the promise has not settled after `seconds`,
    /// and then cancels this promise and the work it depends on.
    ///
    /// ```swift
    /// client.get(CatEndpoint.cuddle, as: Cat.self).timeout(2.5)
    /// ```
    /// - Parameters:
    ///   - seconds: The time allowed, with sub-second precision.
    ///   - clock: Where the time is measured; the real clock by default.
    /// - Returns: A promise settled like this one, or rejected on time-out.
    public func timeout(_ seconds: TimeInterval, clock: any KringleClock = .system) -> Promise<Value> {
        let next = Promise<Value>(dependingOn: self)
        // Weak, so that a dropped pending chain is freed before its timer fires. The upstream
        // is reached through `next`'s dependency, which follows this promise should it step
        // aside (see `stepAside(for:)`).
        let timer = PromiseTimer(after: seconds, on: clock) { [weak next] in
            guard let next, next.settle(.failure(PromiseError.timedOut)) else { return }
            next.cancelDependencies(fromTimerOf: clock)
        }
        // No `onCancel` on `next`: cancelling it cancels this promise too (it depends on
        // it), which calls the timer off below.
        observeInline(target: next) { settled, next in
            timer.cancel()
            Promise.lending(next) { _ = $0.settle(asSettled: settled) }
        }
        return next
    }
}
