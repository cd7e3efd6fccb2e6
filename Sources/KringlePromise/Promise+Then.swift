import Dispatch

// How one promise is derived from another. User handlers run on a queue: `derive`, the one
// primitive under `then`, `done` and every other operator. Kringle's own steps may run
// inline, on the thread that settles the promise: `mapSuccess` and friends, at the end.

extension Promise {
    /// Creates the promise that `handler`, registered for `queue`, settles once this one
    /// settles: the one shape of every operator. The operator's handler gets the new promise
    /// as its target (see `Reaction`) and calls ``react(to:settling:_:)``, so that its closure
    /// holds nothing but the user's closure: one allocation per derived promise besides the
    /// promise, of two words.
    @inlinable
    func derive<Next>(on queue: DispatchQueue, _ handler: @escaping PromiseHandler) -> Promise<Next> {
        // A settled promise ignores cancellation and is never part of an adoption cycle, so a
        // promise derived from one needs no dependency, and skipping it spares the weak
        // reference (a side-table allocation on this promise).
        let next = Promise<Next>(dependingOn: isPending ? self : nil)
        observe(on: queue, target: next, handler)
        return next
    }

    /// An operator's handler: unless `target`, the promise it derived, settled first (it was
    /// cancelled), runs `react`, the user's closure, for the outcome of `settled` as user code
    /// (see `UserCode.run`), then settles `target` as `react` decided.
    ///
    /// Jobs the user's code starts run concurrently as usual, so it may block on them; only
    /// the settlement after it, done by the library once that code has returned, may continue
    /// on this worker.
    @inlinable
    static func react<Next>(
        to settled: AnyObject, settling target: inout any AnyObject & Sendable,
        _ react: (Result<Value, any Error>) -> Outcome<Next>
    ) {
        guard Promise<Next>.lending(target, { $0.isPending }) else { return }
        var decided: Outcome<Next>?
        withOutcome(of: settled) { result in UserCode.run { decided = react(result) } }
        switch decided.unsafelyUnwrapped {
        case .settle(let outcome): Promise<Next>.lending(target) { _ = $0.settle(outcome) }
        case .adopt(let inner): Promise<Next>.adopt(inner, settling: &target)
        }
    }

    /// `body`'s answer for `target`, a promise of this type that a handler acts on, lent
    /// rather than retained: the handler's reaction holds it meanwhile. A retain of a promise
    /// that a weak dependency points to is a look-up of its side table.
    @inlinable
    static func lending<T>(_ target: any AnyObject & Sendable, _ body: (Promise<Value>) -> T) -> T {
        Unmanaged<Promise<Value>>.fromOpaque(Unmanaged.passUnretained(target).toOpaque())._withUnsafeGuaranteedRef(body)
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
        derive(on: queue) { settled, next in
            Promise.react(to: settled, settling: &next) { result in
                switch result {
                case .success(let value):
                    do { return .adopt(try body(value)) } catch { return .settle(.failure(error)) }
                case .failure(let error):
                    return .settle(.failure(error))
                }
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
        derive(on: queue) { settled, next in
            Promise.react(to: settled, settling: &next) { result in
                .settle(result.flatMap { value in Result { try body(value) } })
            }
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

// MARK: - Inline: the step on the settling thread, for Kringle's own plumbing

/// Plumbing for Kringle's own modules, not public API: these run their closure, or pass a
/// failure on, on the thread that settles the promise (a transport's delegate queue, say),
/// saving a queue hop for work that is tiny and never blocks. User handlers always go
/// through `then` and friends, which never run synchronously.
///
/// They are `package` rather than SPI because the client's own inlinable calls
/// (`NetworkClient.get(_:as:)`) use two of them, and inlinable public code may not use SPI.
/// Only ``mapSuccess(_:on:)``, the client's last step on every request, is inlinable, so that
/// it is compiled for the caller's value type where the client is called; the others, on
/// rarer paths (a body to encode, interceptors, redirects, logging), are compiled once.
extension Promise {
    /// The promise of `body`'s result, run on the settling thread.
    package func mapResultInline<Next: Sendable>(
        _ body: @escaping @Sendable (Result<Value, any Error>) throws -> Next
    ) -> Promise<Next> {
        let next = Promise<Next>(dependingOn: self)
        observeInline(target: next) { settled, next in
            Promise<Next>.lending(next) { next in
                guard next.isPending else { return }
                next.settle(Self.withOutcome(of: settled) { result in Result { try body(result) } })
            }
        }
        return next
    }

    /// The promise that adopts the promise `body` returns, `body` run on the settling thread.
    ///
    /// The adopted promise must not wait for the returned one (the library's pipelines never
    /// do): no adoption cycle is looked for.
    @usableFromInline
    package func flatMapResultInline<Next: Sendable>(
        _ body: @escaping @Sendable (Result<Value, any Error>) throws -> Promise<Next>
    ) -> Promise<Next> {
        continueInline { result in .adopt(try body(result)) }
    }

    /// The promise that settles as `body` decides, `body` run on the settling thread: with
    /// a result at once (``Outcome/settle(_:)``), which costs no promise of its own, or as
    /// a promise does (``Outcome/adopt(_:)``). For a step that usually has its answer at
    /// once and sometimes starts more work, as a hop that may be redirected.
    ///
    /// The adopted promise must not wait for the returned one, as for
    /// ``flatMapResultInline(_:)``.
    package func continueInline<Next: Sendable>(
        _ body: @escaping @Sendable (Result<Value, any Error>) throws -> Outcome<Next>
    ) -> Promise<Next> {
        let next = Promise<Next>(dependingOn: self)
        observeInline(target: next) { settled, next in
            Promise<Next>.lending(next) { next in
                guard next.isPending else { return }
                do {
                    switch try Self.withOutcome(of: settled, body) {
                    case .settle(let outcome): next.settle(outcome)
                    case .adopt(let inner): next.adopt(inner, checkingForCycles: false)
                    }
                } catch {
                    next.settle(.failure(error))
                }
            }
        }
        return next
    }

    /// The promise of `body`'s result, `body` run on `queue` once this promise is fulfilled;
    /// a rejection passes on at once, on the settling thread, so that a time-out or a
    /// cancellation never waits for `queue`.
    ///
    /// `body` is not run by a thread blocked in ``wait(timeout:)`` for another promise (it
    /// may take long). When `consumerMayRun` says so for the value, a consumer waiting for the
    /// returned promise itself (a `wait()` without a time-out, an `await` of ``value``) runs
    /// `body` instead of `queue`, which saves waking a thread for it: meant for work short
    /// enough that it never holds up the consumer's cancellation noticeably. On
    /// ``Dispatch/DispatchQueue/promises``, handlers of the returned promise that run on that
    /// queue too then follow `body` on the same thread, without a second hop.
    package func mapSuccess<Next: Sendable>(
        on queue: DispatchQueue,
        consumerMayRun: @escaping @Sendable (Value) -> Bool = { _ in false },
        _ body: @escaping @Sendable (Value) throws -> Next
    ) -> Promise<Next> {
        // The decision passes the result on; capturing nothing, it costs no allocation.
        mapSuccess(deciding: { .settle($0) }, on: queue, consumerMayRun: consumerMayRun, body)
    }

    /// ``mapSuccess(on:consumerMayRun:_:)`` after a decision on the settling thread, in one
    /// step: `decide` gives the value for `body` at once (``Outcome/settle(_:)``), or a
    /// promise of it (``Outcome/adopt(_:)``) that `body` then follows. For a stage that
    /// usually decides at once: one promise fewer than `continueInline` followed by
    /// `mapSuccess`.
    ///
    /// The followed promise must not wait for the returned one, as for
    /// ``flatMapResultInline(_:)``.
    package func mapSuccess<Decided: Sendable, Next: Sendable>(
        deciding decide: @escaping @Sendable (Result<Value, any Error>) throws -> Outcome<Decided>,
        on queue: DispatchQueue,
        consumerMayRun: @escaping @Sendable (Decided) -> Bool = { _ in false },
        _ body: @escaping @Sendable (Decided) throws -> Next
    ) -> Promise<Next> {
        mapSuccess(ClosureStep(decideBody: decide, mayRun: consumerMayRun, body: body), on: queue)
    }

    /// ``mapSuccess(deciding:on:consumerMayRun:_:)`` for a step written as a type: its
    /// ``SuccessStep/decide(_:)``, then its ``SuccessStep/run(_:)`` on `queue`. The client
    /// writes its last hop's decision and its decode as one (`DecodeStep`), so this runs once
    /// per request.
    ///
    /// Compiled for the step's type, this calls the step's methods directly. Closures
    /// passed to the generic form are each wrapped, for every call, in a thunk that passes
    /// their arguments the generic way: an allocation per closure per request on the
    /// client's path.
    @inlinable
    package func mapSuccess<Step: SuccessStep>(_ step: Step, on queue: DispatchQueue) -> Promise<Step.Output>
    where Step.Input == Value {
        let next = Promise<Step.Output>(dependingOn: self)
        observeInline(target: next) { settled, next in
            Promise<Step.Output>.lending(next) { next in
                guard next.isPending else { return }
                let decided: Result<Step.Decided, any Error>
                do {
                    switch try Self.withOutcome(of: settled, { try step.decide($0) }) {
                    case .settle(let outcome):
                        decided = outcome
                    case .adopt(let inner):
                        // Followed directly rather than through a promise of its own, so that a
                        // consumer waiting for `next` can still take the job (`handOff`).
                        next.addDependency(inner)
                        inner.observeInline(target: next) { settled, next in
                            Promise<Step.Output>.lending(next) { next in
                                guard next.isPending else { return }
                                next.settle(
                                    Promise<Step.Decided>.withOutcome(of: settled) { $0 }, runningOn: queue, step)
                            }
                        }
                        // Cancelled while `decide` ran: the dependency came too late to carry it.
                        if next.isCancelled { inner.cancel() }
                        return
                    }
                } catch {
                    decided = .failure(error)
                }
                next.settle(decided, runningOn: queue, step)
            }
        }
        return next
    }
}

extension Promise {
    /// Settles this pending promise with `step`'s ``SuccessStep/run(_:)`` for the value in
    /// `result`, run on `queue` (or by a consumer waiting for this promise, when the step
    /// says so), or at once with the failure in `result`.
    @inlinable
    func settle<Step: SuccessStep>(
        _ result: Result<Step.Decided, any Error>, runningOn queue: DispatchQueue, _ step: Step
    ) where Step.Output == Value {
        switch result {
        case .failure(let error):
            settle(.failure(error))
        case .success(let value):
            // A job of the promises' queue, wherever it runs (see `JobQueue.asyncUnshared`).
            let job: @Sendable () -> Void = {
                DeferredPromiseJobs.runAsJob(of: queue) {
                    guard self.isPending else { return }
                    var result: Result<Value, any Error>?
                    UserCode.run { result = Result { try step.run(value) } }
                    self.settle(result.unsafelyUnwrapped)
                }
            }
            sendSettlingJob(job, on: queue, consumerMayRun: step.consumerMayRun(value))
        }
    }
}
