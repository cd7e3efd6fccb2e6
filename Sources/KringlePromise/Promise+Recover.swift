import Dispatch

extension Promise {
    /// Turns a rejection into a value; a fulfilment passes through untouched.
    ///
    /// ```swift
    /// let cats = client.get(CatEndpoint.cats, as: [Cat].self).recover { _ in [] }
    /// ```
    ///
    /// For a closure that returns a promise (another attempt, a fallback server), use
    /// ``recoverWith(on:_:)``. The result is not discardable: a recovered value that nobody
    /// reads is almost always a mistake.
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs; ``Dispatch/DispatchQueue/promises`` by default.
    ///   - body: Returns a replacement value, or throws to keep the promise rejected.
    /// - Returns: A promise of this promise's value, or of `body`'s.
    @inlinable
    public func recover(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (any Error) throws -> Value
    ) -> Promise<Value> {
        derive(on: queue) { settled, next in
            Promise.react(to: settled, settling: &next) { result in
                switch result {
                case .success: return .settle(result)
                case .failure(let error): return .settle(Result { try body(error) })
                }
            }
        }
    }

    /// Turns a rejection into more asynchronous work; the returned promise follows the
    /// promise that `body` returns. A fulfilment passes through untouched.
    ///
    /// ```swift
    /// let cats = primary.get(CatEndpoint.cats, as: [Cat].self)
    ///     .recoverWith { _ in mirror.get(CatEndpoint.cats, as: [Cat].self) }
    /// ```
    ///
    /// `recover` is to `recoverWith` what ``map(on:_:)`` is to
    /// ``then(on:_:)->Promise<Next>``: the first takes a closure that returns a value, the
    /// second one that returns a promise.
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs; ``Dispatch/DispatchQueue/promises`` by default.
    ///   - body: Returns a promise to use instead, or throws to keep the promise rejected.
    /// - Returns: A promise that settles as this one, or as `body`'s promise.
    @inlinable
    public func recoverWith(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (any Error) throws -> Promise<Value>
    ) -> Promise<Value> {
        derive(on: queue) { settled, next in
            Promise.react(to: settled, settling: &next) { result in
                switch result {
                case .success:
                    return .settle(result)
                case .failure(let error):
                    do { return .adopt(try body(error)) } catch { return .settle(.failure(error)) }
                }
            }
        }
    }
}
