import Dispatch

extension Promise {
    /// Creates the promise that `react` settles on `queue` once this one settles.
    ///
    /// `react` is skipped when the derived promise settled first (it was cancelled). It gets
    /// the operator's `body` as an argument instead of capturing it: written without
    /// captures, it needs no closure context of its own, so each derived promise costs one
    /// closure allocation (the handler's) instead of two.
    @inlinable
    func derive<Next, Body: Sendable>(
        on queue: DispatchQueue,
        passing body: Body,
        _ react: @escaping @Sendable (Result<Value, any Error>, Body) -> Outcome<Next>
    ) -> Promise<Next> {
        let next: Promise<Next> = makeDependent()
        observe(on: queue) { result in
            guard next.isPending else { return }
            // Jobs the user's code starts run concurrently as usual; only the settlement
            // below, done by the library once that code has returned, may continue on this
            // worker (see `Trampoline.runPromiseJob`).
            switch Trampoline.withoutDeferral({ react(result, body) }) {
            case .settle(let outcome): next.settle(outcome)
            case .adopt(let inner): next.adopt(inner)
            }
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
        derive(on: queue, passing: body) { result, body in
            .settle(result.flatMap { value in Result { try body(value) } })
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
        derive(on: queue, passing: body) { result, body in
            switch result {
            case .success(let value):
                do { return .adopt(try body(value)) } catch { return .settle(.failure(error)) }
            case .failure(let error):
                return .settle(.failure(error))
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
        derive(on: queue, passing: body) { result, body in
            .settle(result.flatMap { value in Result { try body(value); return value } })
        }
    }
}

/// What an operator's handler decided for the promise it derives.
@usableFromInline
enum Outcome<Value: Sendable>: Sendable {
    /// Settle with this result.
    case settle(Result<Value, any Error>)
    /// Settle as this promise does.
    case adopt(Promise<Value>)
}
