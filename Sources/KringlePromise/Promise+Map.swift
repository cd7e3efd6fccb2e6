import Dispatch

extension Promise {
    /// Transforms the value once the promise is fulfilled.
    ///
    /// A rejection skips `body` and rejects the returned promise with the same error; a
    /// throw from `body` rejects it with the thrown error. For a closure that starts more
    /// asynchronous work and returns its promise, use ``then(on:_:)->Promise<Next>``.
    ///
    /// ```swift
    /// let names = client.get(CatEndpoint.cats, as: [Cat].self)
    ///     .map { cats in cats.map(\.name).sorted() }
    /// ```
    ///
    /// The result is not discardable: a transformed value that nobody reads is almost
    /// always a mistake.
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs; ``Dispatch/DispatchQueue/promises`` by default.
    ///   - body: Turns the value into the next value.
    /// - Returns: A promise of `body`'s result.
    @inlinable
    public func map<Next: Sendable>(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (Value) throws -> Next
    ) -> Promise<Next> {
        derive(on: queue) { settled, next in
            Promise.react(to: settled, settling: &next) { result in
                .settle(result.flatMap { value in Result { try body(value) } })
            }
        }
    }
}
