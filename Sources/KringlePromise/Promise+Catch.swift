import Dispatch

extension Promise {
    /// Handles a rejection and passes the result on unchanged.
    ///
    /// Cancellation is a rejection too: `body` sees ``PromiseError/cancelled``.
    ///
    /// ```swift
    /// client.get(CatEndpoint.cats, as: [Cat].self)
    ///     .done { show($0) }
    ///     .catch { error in print("Could not load cats: \(error)") }
    /// ```
    /// - Parameters:
    ///   - queue: Where `body` runs; ``Dispatch/DispatchQueue/promises`` by default.
    ///   - body: Receives the error.
    /// - Returns: A promise settled like this one, after `body` has run.
    @inlinable
    @discardableResult
    public func `catch`(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (any Error) -> Void
    ) -> Promise<Value> {
        derive(on: queue) { settled, next in
            Promise.react(to: settled, settling: &next) { result in
                if case .failure(let error) = result { body(error) }
                return .settle(result)
            }
        }
    }
}
