import Dispatch

extension Promise {
    /// Creates the promise that a handler on `queue` settles once this one settles.
    ///
    /// The handler is skipped when the derived promise settled first (it was cancelled).
    @inlinable
    func derive<Next>(
        on queue: DispatchQueue,
        _ body: @escaping @Sendable (Result<Value, any Error>, Promise<Next>) -> Void
    ) -> Promise<Next> {
        let next = Promise<Next>(dependingOn: self)
        observe(on: queue) { result in
            if next.isPending { body(result, next) }
        }
        return next
    }

    /// Transforms the value once the promise is fulfilled.
    ///
    /// A rejection skips `body` and rejects the returned promise with the same error; a
    /// throw from `body` rejects it with the thrown error.
    ///
    /// ```swift
    /// let length = name.then { $0.count }
    /// ```
    /// - Parameters:
    ///   - queue: Where `body` runs; ``Dispatch/DispatchQueue/promises`` by default.
    ///   - body: Turns the value into the next value.
    /// - Returns: A promise of `body`'s result.
    @inlinable
    @discardableResult
    public func then<Next: Sendable>(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (Value) throws -> Next
    ) -> Promise<Next> {
        derive(on: queue) { result, next in
            next.settle(result.flatMap { value in Result { try body(value) } })
        }
    }

    /// Chains asynchronous work: the returned promise adopts the state of the promise that
    /// `body` returns.
    ///
    /// ```swift
    /// client.get(.user, as: User.self)
    ///     .then { user in client.get(.avatar(user.id), as: Data.self) }
    /// ```
    /// - Parameters:
    ///   - queue: Where `body` runs; ``Dispatch/DispatchQueue/promises`` by default.
    ///   - body: Starts the next piece of work.
    /// - Returns: A promise that settles as `body`'s promise does.
    @inlinable
    @discardableResult
    public func then<Next: Sendable>(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (Value) throws -> Promise<Next>
    ) -> Promise<Next> {
        derive(on: queue) { result, next in
            switch result {
            case .success(let value):
                do { next.adopt(try body(value)) } catch { next.settle(.failure(error)) }
            case .failure(let error):
                next.settle(.failure(error))
            }
        }
    }

    /// Looks at the value once the promise is fulfilled and passes it on unchanged.
    ///
    /// ```swift
    /// client.get(.cats, as: [Cat].self)
    ///     .then { cats in print("\(cats.count) cats") }
    ///     .then { cats in show(cats) }
    /// ```
    /// - Parameters:
    ///   - queue: Where `body` runs; ``Dispatch/DispatchQueue/promises`` by default.
    ///   - body: Uses the value; a throw rejects the returned promise.
    /// - Returns: A promise of the same value, fulfilled after `body` has run.
    @inlinable
    @discardableResult
    public func then(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (Value) throws -> Void
    ) -> Promise<Value> {
        derive(on: queue) { result, next in
            next.settle(result.flatMap { value in Result { try body(value); return value } })
        }
    }
}
