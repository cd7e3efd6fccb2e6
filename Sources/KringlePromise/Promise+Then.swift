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
            // Jobs the user's code starts run concurrently as usual, so it may block on them;
            // only the settlement below, done by the library once that code has returned,
            // may continue on this worker (see `UserCode.run`).
            switch UserCode.run({ react(result, body) }) {
            case .settle(let outcome): next.settle(outcome)
            case .adopt(let inner): next.adopt(inner)
            }
        }
        return next
    }

    /// Chains the next asynchronous step: `body` starts it and returns its promise, which
    /// the returned promise then follows.
    ///
    /// `then` is for a closure that returns a ``Promise``; a closure that returns a plain
    /// value goes to ``map(on:_:)``, one that returns nothing to ``tap(on:_:)`` or
    /// ``done(on:_:)``. One name per kind of closure lets Swift pick the operator of each
    /// link at a glance, so a chain of any length compiles as fast as its links do one by
    /// one, with no type annotations in the closures.
    ///
    /// A rejection skips `body` and rejects the returned promise with the same error; a
    /// throw from `body` rejects it with the thrown error.
    ///
    /// ```swift
    /// client.get(CatEndpoint.cuddle, as: Cat.self)
    ///     .then { cat in
    ///         print("\(cat.name) wants food")
    ///         return client.put(Meal(food: "tuna", grams: 80), to: CatEndpoint.feed(catName: cat.name), as: Cat.self)
    ///     }
    /// ```
    ///
    /// The result is not discardable: a chain that nobody continues or handles loses its
    /// errors, so the compiler warns. End it with ``catch(on:_:)`` (or assign it to `_`).
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs; ``Dispatch/DispatchQueue/promises`` by default.
    ///   - body: Starts the next piece of work.
    /// - Returns: A promise that settles as `body`'s promise does.
    @inlinable
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

/// What an operator's handler decided for the promise it derives. Kringle's pipeline uses
/// it too (``Promise/continueInline(_:)``), so it is `package`: not public API.
@usableFromInline
package enum Outcome<Value: Sendable>: Sendable {
    /// Settle with this result.
    case settle(Result<Value, any Error>)
    /// Settle as this promise does.
    case adopt(Promise<Value>)
}
