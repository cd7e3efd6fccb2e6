import Dispatch

extension Promise {
    /// Runs `body` whether the promise is fulfilled or rejected, and passes the result on.
    ///
    /// ```swift
    /// spinner.start()
    /// client.get(CatEndpoint.cats, as: [Cat].self).always { spinner.stop() }
    /// ```
    @inlinable
    @discardableResult
    public func always(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable () -> Void
    ) -> Promise<Value> {
        derive(on: queue) { settled, next in
            Promise.react(to: settled, settling: &next) { result in
                body()
                return .settle(result)
            }
        }
    }
}
