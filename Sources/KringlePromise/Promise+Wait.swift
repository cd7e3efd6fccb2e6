import Foundation

extension Promise {
    /// Blocks the calling thread until the promise settles, and returns its value.
    ///
    /// Meant for scripts and command-line tools that chain promises and then need the
    /// answer before they exit:
    /// ```swift
    /// let cats = try client.get(.cats, as: [Cat].self).wait()
    /// ```
    /// Called on the main thread, it runs the promise handlers that target
    /// `DispatchQueue.main` while it waits, so a chain with main-queue handlers does not
    /// deadlock (other main-queue work waits until it returns). On the library's own
    /// queues it blocks only the calling thread. Do not call it on a serial queue of yours
    /// that a handler of the same chain needs.
    ///
    /// - Parameter timeout: Seconds to wait at most; `nil` waits as long as it takes.
    /// - Throws: The rejection error, or ``PromiseError/timedOut`` when `timeout` passes
    ///   first (the promise itself is left untouched).
    public func wait(timeout: TimeInterval? = nil) throws -> Value {
        let deadline: DispatchTime = timeout.map { .now() + $0 } ?? .distantFuture
        let wakeUp = DispatchSemaphore(value: 0)
        observeInline { _ in wakeUp.signal() }
        if Thread.isMainThread {
            try MainThreadJobs.whileWaking(wakeUp) {
                MainThreadJobs.runPending()
                while isPending {
                    if wakeUp.wait(timeout: deadline) == .timedOut { throw PromiseError.timedOut }
                    MainThreadJobs.runPending()
                }
            }
        } else if wakeUp.wait(timeout: deadline) == .timedOut {
            throw PromiseError.timedOut
        }
        guard let result else { throw PromiseError.timedOut }
        return try result.get()
    }
}
