import Synchronization

extension Promise {
    /// Cancels the promise and the pending work it depends on.
    ///
    /// A pending promise is rejected with ``PromiseError/cancelled`` and runs the handlers its
    /// producer registered with ``onCancel(_:)``. The cancellation then travels upstream to
    /// every pending promise this one was derived from (by `then`, `all`, `timeout`, an
    /// adopted promise…), so cancelling the end of a chain stops the work at its start: an
    /// HTTP request, a scheduled retry, a delay. Promises further down the chain are rejected
    /// with the same error, so `catch` handlers see it. Cancelling a settled promise does
    /// nothing.
    ///
    /// Upstream promises are shared: cancelling one chain built on a promise also rejects
    /// the other chains built on it.
    public func cancel() {
        // Iterative on purpose: a chain may be a million links long.
        var work: [any PromiseNode] = [self]
        while let node = work.popLast() {
            work.append(contentsOf: node.cancelAndCollectDependencies())
        }
    }

    /// Registers work to run if this promise is cancelled before it settles.
    ///
    /// Producers use it to stop what they started:
    /// ```swift
    /// let promise = Promise<Data>.pending()
    /// let task = session.dataTask(with: url) { … }
    /// promise.onCancel { task.cancel() }
    /// ```
    /// The handler runs on the thread that calls ``cancel()``, at most once. If the promise
    /// was already cancelled it runs at once; if it settled otherwise it never runs. It may
    /// block until promise work it started has run, even when the library itself cancels (a
    /// chain cancelled while a handler ran cancels the promise that handler returned).
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = lock.withLock { _ -> Bool in
            let phase = phase.load(ordering: .relaxed)
            guard phase == .pending else { return phase == .cancelled }
            if state.firstCancelHandler == nil {
                state.firstCancelHandler = CancelHandler(handler)
            } else {
                state.extra().cancelHandlers.append(CancelHandler(handler))
            }
            return false
        }
        if runNow { UserCode.run(handler) }
    }
}
