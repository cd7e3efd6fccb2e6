import Foundation

extension Promise {
    /// Rejects with ``PromiseError/timedOut`` if the promise has not settled after `seconds`,
    /// and then cancels this promise and the work it depends on.
    ///
    /// ```swift
    /// client.get(CatEndpoint.cats, as: [Cat].self).timeout(2.5)
    /// ```
    /// - Parameter seconds: The time allowed, with sub-second precision.
    /// - Returns: A promise settled like this one, or rejected on time-out.
    public func timeout(_ seconds: TimeInterval) -> Promise<Value> {
        let next = Promise<Value>(dependingOn: self)
        let timer = PromiseTimer(after: seconds) { [weak self, weak next] in
            guard let next, next.settle(.failure(PromiseError.timedOut)) else { return }
            self?.cancel()
        }
        next.onCancel { timer.cancel() }
        observeInline { result in
            timer.cancel()
            next.settle(result)
        }
        return next
    }
}
