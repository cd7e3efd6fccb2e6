import Dispatch

/// Plumbing for Kringle's own modules, not public API: these run their closure, or pass a
/// failure on, on the thread that settles the promise (a transport's delegate queue, say),
/// saving a queue hop for work that is tiny and never blocks. User handlers always go
/// through `then` and friends, which never run synchronously.
///
/// They are inlinable so that the client's pipeline, which calls them on every request, gets
/// them compiled for its concrete types instead of running generic code. They are `package`
/// rather than SPI because the client's own inlinable calls (`NetworkClient.get(_:as:)`)
/// use them, so that they are compiled for the caller's value type in the caller's module,
/// and inlinable public code may not use SPI.
extension Promise {
    /// The promise of `body`'s result, run on the settling thread.
    @inlinable
    package func mapResultInline<Next: Sendable>(
        _ body: @escaping @Sendable (Result<Value, any Error>) throws -> Next
    ) -> Promise<Next> {
        let next = Promise<Next>(dependingOn: self)
        observeInline { result in
            guard next.isPending else { return }
            next.settle(Result { try body(result) })
        }
        return next
    }

    /// The promise that adopts the promise `body` returns, `body` run on the settling thread.
    ///
    /// The adopted promise must not wait for the returned one (the library's pipelines never
    /// do): no adoption cycle is looked for.
    @inlinable
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
    @inlinable
    package func continueInline<Next: Sendable>(
        _ body: @escaping @Sendable (Result<Value, any Error>) throws -> Outcome<Next>
    ) -> Promise<Next> {
        let next = Promise<Next>(dependingOn: self)
        observeInline { result in
            guard next.isPending else { return }
            do {
                switch try body(result) {
                case .settle(let outcome): next.settle(outcome)
                case .adopt(let inner): next.adopt(inner, checkingForCycles: false)
                }
            } catch {
                next.settle(.failure(error))
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
    @inlinable
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
    /// usually decides at once, as the client's last hop before the decode: one promise
    /// fewer than `continueInline` followed by `mapSuccess`.
    ///
    /// The followed promise must not wait for the returned one, as for
    /// ``flatMapResultInline(_:)``.
    @inlinable
    package func mapSuccess<Decided: Sendable, Next: Sendable>(
        deciding decide: @escaping @Sendable (Result<Value, any Error>) throws -> Outcome<Decided>,
        on queue: DispatchQueue,
        consumerMayRun: @escaping @Sendable (Decided) -> Bool = { _ in false },
        _ body: @escaping @Sendable (Decided) throws -> Next
    ) -> Promise<Next> {
        mapSuccess(ClosureStep(decideBody: decide, mayRun: consumerMayRun, body: body), on: queue)
    }

    /// ``mapSuccess(deciding:on:consumerMayRun:_:)`` for a step written as a type: its
    /// ``SuccessStep/decide(_:)``, then its ``SuccessStep/run(_:)`` on `queue`.
    ///
    /// Compiled for the step's type, this calls the step's methods directly. Closures
    /// passed to the generic form are each wrapped, for every call, in a thunk that passes
    /// their arguments the generic way: an allocation per closure per request on the
    /// client's path.
    @inlinable
    package func mapSuccess<Step: SuccessStep>(_ step: Step, on queue: DispatchQueue) -> Promise<Step.Output>
    where Step.Input == Value {
        let next = Promise<Step.Output>(dependingOn: self)
        observeInline { result in
            guard next.isPending else { return }
            let decided: Result<Step.Decided, any Error>
            do {
                switch try step.decide(result) {
                case .settle(let outcome):
                    decided = outcome
                case .adopt(let inner):
                    // Followed directly rather than through a promise of its own, so that a
                    // consumer waiting for `next` can still take the job (`handOff`).
                    next.addDependency(inner)
                    inner.observeInline { result in
                        guard next.isPending else { return }
                        next.settle(result, runningOn: queue, step)
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
        return next
    }
}

/// A stage of ``Promise/mapSuccess(_:on:)``: a decision on the thread that settles the
/// promise, then work on a queue with the value decided. Kringle's pipeline writes its last
/// hop and its decode as one (`package`: not public API).
@usableFromInline
package protocol SuccessStep: Sendable {
    associatedtype Input: Sendable
    associatedtype Decided: Sendable
    associatedtype Output: Sendable

    /// The value for ``run(_:)`` (``Outcome/settle(_:)``), or the promise of it
    /// (``Outcome/adopt(_:)``); on the settling thread, so quick. A failure skips `run`.
    func decide(_ result: Result<Input, any Error>) throws -> Outcome<Decided>
    /// Whether a consumer waiting for the step's promise may run ``run(_:)`` for `value`
    /// itself (see ``Promise/mapSuccess(on:consumerMayRun:_:)``).
    func consumerMayRun(_ value: Decided) -> Bool
    /// The work for the value decided, on the step's queue (or by its consumer).
    func run(_ value: Decided) throws -> Output
}

/// A ``SuccessStep`` made of closures.
@usableFromInline
struct ClosureStep<Input: Sendable, Decided: Sendable, Output: Sendable>: SuccessStep {
    @usableFromInline let decideBody: @Sendable (Result<Input, any Error>) throws -> Outcome<Decided>
    @usableFromInline let mayRun: @Sendable (Decided) -> Bool
    @usableFromInline let body: @Sendable (Decided) throws -> Output

    @inlinable
    init(
        decideBody: @escaping @Sendable (Result<Input, any Error>) throws -> Outcome<Decided>,
        mayRun: @escaping @Sendable (Decided) -> Bool,
        body: @escaping @Sendable (Decided) throws -> Output
    ) {
        self.decideBody = decideBody
        self.mayRun = mayRun
        self.body = body
    }

    @inlinable
    func decide(_ result: Result<Input, any Error>) throws -> Outcome<Decided> {
        try decideBody(result)
    }

    @inlinable
    func consumerMayRun(_ value: Decided) -> Bool {
        mayRun(value)
    }

    @inlinable
    func run(_ value: Decided) throws -> Output {
        try body(value)
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
                    self.settle(UserCode.run { Result { try step.run(value) } })
                }
            }
            if step.consumerMayRun(value), handOff(Claim.Offer(queue: queue, job: job)) { return }
            JobQueue.asyncUnshared(on: queue, job)
        }
    }
}
