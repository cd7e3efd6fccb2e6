import Dispatch

extension Promise {
    /// Uses the value at the end of a chain.
    ///
    /// Like ``tap(on:_:)``, but the returned promise carries no value: it says when `body`
    /// has run, or why it did not (a rejection skips `body`; a throw from it rejects).
    ///
    /// ```swift
    /// client.get(CatEndpoint.cuddle, as: Cat.self)
    ///     .done { cat in print("\(cat.name) is \(cat.mood)") }
    ///     .catch { error in print(error) }
    /// ```
    ///
    /// The result is discardable: it is the end of the chain.
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs; ``Dispatch/DispatchQueue/promises`` by default.
    ///   - body: Uses the value.
    /// - Returns: A promise fulfilled after `body` has run.
    @inlinable
    @discardableResult
    public func done(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (Value) throws -> Void
    ) -> Promise<Void> {
        derive(on: queue, passing: body) { result, body in
            .settle(result.flatMap { value in Result { try body(value) } })
        }
    }
}

extension Promise where Value == Void {
    /// Runs `body` once the promise is fulfilled: on a `Promise<Void>`, `then` also takes a
    /// closure that returns nothing, the same as ``done(on:_:)``.
    ///
    /// ```swift
    /// client.get(CatEndpoint.cuddle).then { _ in print("🐱") }.catch { error in print("You gotta be kitten me!") }
    /// ```
    ///
    /// Only on `Promise<Void>`, and ranked below the promise-returning
    /// ``then(on:_:)->Promise<Next>``, so that a closure returning a promise always chains it
    /// and a long chain still compiles at once. On promises of other values, a closure that
    /// returns nothing goes to ``done(on:_:)`` or ``tap(on:_:)``.
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs; ``Dispatch/DispatchQueue/promises`` by default.
    ///   - body: The work to do.
    /// - Returns: A promise fulfilled after `body` has run.
    @_disfavoredOverload
    // Disfavoured, measured: a plain overload makes a chain of ten `Promise<Void>` links fail
    // to type-check, and makes `then { somePromise }` pick this overload (dropping the
    // promise); disfavoured, a 50-link chain type-checks in a fraction of a second
    // (Scripts/typecheck-chains.sh).
    @inlinable
    @discardableResult
    public func then(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (Value) throws -> Void
    ) -> Promise<Void> {
        done(on: queue, body)
    }
}
