import Dispatch

extension Promise {
    /// Looks at the value once the promise is fulfilled and passes it on unchanged.
    ///
    /// For logging, caching or updating a view in the middle of a chain. A rejection skips
    /// `body`; a throw from `body` rejects the returned promise.
    ///
    /// ```swift
    /// client.get(CatEndpoint.cats, as: [Cat].self)
    ///     .tap { cats in print("\(cats.count) cats") }
    ///     .map { cats in cats.filter { $0.mood == "hungry" } }
    /// ```
    ///
    /// The result is discardable: a side effect is often the last thing a chain does.
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs; ``Dispatch/DispatchQueue/promises`` by default.
    ///   - body: Uses the value.
    /// - Returns: A promise of the same value, fulfilled after `body` has run.
    @inlinable
    @discardableResult
    public func tap(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (Value) throws -> Void
    ) -> Promise<Value> {
        derive(on: queue) { settled, next in
            Promise.react(to: settled, settling: &next) { result in
                .settle(
                    result.flatMap { value in
                        Result {
                            try body(value); return value
                        }
                    })
            }
        }
    }
}
