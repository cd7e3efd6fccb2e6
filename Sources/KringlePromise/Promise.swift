import Dispatch
import Synchronization

/// A value that will be available later, or an error explaining why it will not.
///
/// A promise starts pending and settles exactly once: fulfilled with a value or rejected
/// with an error. Handlers attached with ``then(on:_:)->Promise<Next>``, ``map(on:_:)``,
/// ``catch(on:_:)`` and the other operators run asynchronously on a dispatch queue (by
/// default ``Dispatch/DispatchQueue/promises``, never the main queue) once it settles.
///
/// ```swift
/// let answer = Promise<Int>.pending()
/// answer
///     .map { $0 * 2 }
///     .done { print("doubled:", $0) }
///     .catch { print("failed:", $0) }
/// answer.fulfill(21)
/// ```
///
/// Promises are thread-safe: any thread may settle, observe or cancel one at any time.
///
/// Every closure you hand to the library may block until promise work it started has run:
/// an operator's handler, a ``init(on:_:)`` body, ``retry(on:attempts:delay:clock:condition:_:)``'s
/// work and condition, an ``onCancel(_:)`` handler. It may wait on a `DispatchSemaphore`, a
/// `DispatchGroup` or ``wait(timeout:)``, as it may on any concurrent queue: the library
/// keeps none of that work for the thread it blocks. (A closure that blocks still holds its
/// thread: on a serial queue of yours, work bound for that same queue waits behind it.)
/// Every operator is a thin layer over one internal primitive (`observe(on:_:)`), so the
/// ordering, threading and exactly-once rules are written once: here and in the state it
/// keeps (`Promise+Storage.swift`).
///
/// Operators are named after what their closure returns, so that Swift picks each link's
/// operator at once and a long chain compiles without type annotations:
///
/// | closure returns | operator |
/// |---|---|
/// | a `Promise` (the next asynchronous step) | ``then(on:_:)->Promise<Next>`` |
/// | a value | ``map(on:_:)`` |
/// | nothing, passing the value on | ``tap(on:_:)`` |
/// | nothing, at the end of a chain | ``done(on:_:)`` |
/// | a value instead of an error | ``recover(on:_:)`` |
/// | a promise instead of an error | ``recoverWith(on:_:)`` |
public final class Promise<Value: Sendable>:
    // Guarded by `lock`; the details are in the comment below.
    @unchecked Sendable
{
    // Unchecked because `lock` guards `state`, `dependency`, `outcomeReference` and
    // `inlineValue`. Two kinds of access need no lock: the last two are written once, with
    // the lock held, before `phase` leaves `.pending` (a releasing store), and never again,
    // so whoever sees a settled `phase` (an acquiring load) may read them; and `deinit` runs
    // when no other reference is left. The properties are `@exclusivity(unchecked)` because
    // the lock already serialises every access: the run-time exclusivity check would only
    // add a call to each one.
    //
    // The layout is chosen for a fast `deinit`. Swift cannot specialise the `deinit` of a
    // generic class, so it destroys each property through the property's type metadata, and
    // finding the metadata of a type that depends on `Value` (`Value?`, a struct generic
    // over `Value` whose layout varies with it) is a search of the runtime's tables, costing
    // as much as the rest of a short-lived promise's life. So no property's layout depends
    // on `Value`: the state holds only references and closures, and the outcome is stored
    // as described in `Promise+Outcome.swift`.

    @usableFromInline typealias Handler = @Sendable (Result<Value, any Error>) -> Void

    @usableFromInline let lock = PromiseLock(())
    @usableFromInline let phase: Atomic<Phase>
    @usableFromInline @exclusivity(unchecked) var state = State()
    /// The pending promise whose settlement this one waits for (for cancellation and cycle
    /// detection); any others are in `state.overflow`. Weak because the upstream promise
    /// holds this one (through the handler that will settle it): a strong reference would
    /// keep a dropped pending chain alive. Only read while pending, so never cleared. Kept
    /// out of `state` because a weak reference would make `state` address-only, which
    /// Swift destroys through its metadata. An `AnyObject` (one word) rather than an
    /// `any PromiseNode` (two): it keeps a promise within 104 bytes of memory, and is only
    /// read, and cast back, when cancelling or looking for an adoption cycle.
    @usableFromInline @exclusivity(unchecked) weak var dependency: AnyObject?
    @usableFromInline @exclusivity(unchecked) var outcomeReference: OutcomeReference?
    @usableFromInline @exclusivity(unchecked) var inlineValue: InlineValue = 0

    /// A pending promise that waits for `upstream`, if any (for cancellation and cycle
    /// detection).
    @inlinable
    init(dependingOn upstream: (any PromiseNode)? = nil) {
        phase = Atomic(.pending)
        // A weak property starts as `nil`; assigning `nil` again would be a runtime call.
        if let upstream { dependency = upstream }
    }

    /// A promise settled from the start.
    @inlinable
    init(settled result: Result<Value, any Error>) {
        phase = Atomic(result.isSuccess ? .fulfilled : .rejected)
        storeOutcome(result)
    }

    deinit {
        // Nobody else holds the promise any more, so no lock is needed. Most promises hold
        // no observer by now and skip everything. So does a settled one with an overflow
        // (it had several observers or drains): its observers have all run, as each drain
        // holds the promise until it is done, so what the overflow still holds (queues, weak
        // dependencies) is released as any property is; Leftovers' path below would cost
        // several look-ups of generic metadata. A claim and a first cancel handler, kept in
        // `state`, are released directly too: neither holds a chain of promises.
        guard state.first != nil || (state.overflow != nil && phase.load(ordering: .relaxed) == .pending) else {
            return
        }
        // A dropped pending chain frees its links one by one, not recursively (rule 7/8):
        // what the observers hold is moved out, for the trampoline to release.
        Trampoline.release(Leftovers(first: state.first.take(), overflow: state.overflow.take()))
    }

    /// What a pending promise still held when it was freed.
    private final class Leftovers {
        let first: Observer?
        let overflow: Overflow?

        init(first: Observer?, overflow: Overflow?) {
            self.first = first
            self.overflow = overflow
        }
    }

    // MARK: - The primitive every operator builds on

    /// Runs `handler` on `queue` once the promise has settled; never synchronously.
    ///
    /// Handlers registered for the same queue run one after another in registration
    /// order, including handlers registered from inside another handler. The operators run
    /// the user's closure inside `handler` through `UserCode.run(_:)`.
    @inlinable
    func observe(on queue: DispatchQueue, _ handler: @escaping Handler) {
        let drain: Drain.Kind? = lock.withLock { _ in
            state.append(Observer(queue: queue, handler: handler))
            // `phase` only changes with the lock held, so a relaxed load is enough here.
            guard phase.load(ordering: .relaxed) != .pending else { return nil }
            return state.activate(queue)
        }
        if let drain { start(drain, on: queue) }
    }

    /// Runs library bookkeeping as soon as the promise settles, on the settling thread.
    ///
    /// For internal use where the work is tiny and thread-safe (settling another promise,
    /// counting results); user closures always go through ``observe(on:_:)``.
    @inlinable
    func observeInline(_ handler: @escaping Handler) {
        if let result = settledResult {
            Trampoline.run(handler, with: result)
            return
        }
        let settled: Bool = lock.withLock { _ in
            guard phase.load(ordering: .relaxed) == .pending else { return true }
            state.append(Observer(queue: nil, handler: handler))
            return false
        }
        if settled, let result = settledResult {
            Trampoline.run(handler, with: result)
        }
    }

    /// Settles the promise; returns `false` (and changes nothing) when it had settled already.
    @inlinable @discardableResult
    func settle(_ result: Result<Value, any Error>) -> Bool {
        let settled: Settled? = lock.withLock { _ in
            guard phase.load(ordering: .relaxed) == .pending else { return nil }
            return settleLocked(result, as: result.isSuccess ? .fulfilled : .rejected)
        }
        guard let settled else { return false }
        wake(settled.wakeUps, result)
        // Not a cancellation: the cancel handlers, taken out, are released here, outside the
        // lock, without running.
        return true
    }

    /// What ``settleLocked(_:as:)`` takes out of the state: what to set off, and the first
    /// cancel handler (any others are among the wake-ups). A transport's promise holds one
    /// handler, which then needs no list of wake-ups built for it alone.
    @usableFromInline
    typealias Settled = (wakeUps: WakeUps, firstCancelHandler: CancelHandler?)

    /// Records the outcome and takes out what to set off once the lock is released, and the
    /// cancel handlers, to be run (on cancellation) or released outside the lock. Called
    /// with the lock held, while pending.
    @inlinable
    func settleLocked(_ result: Result<Value, any Error>, as settled: Phase) -> Settled {
        storeOutcome(result)
        phase.store(settled, ordering: .releasing)
        let wakeUps = state.wakeUps()
        let firstCancelHandler = state.firstCancelHandler.take()
        guard let overflow = state.overflow, !overflow.cancelHandlers.isEmpty else {
            return (wakeUps, firstCancelHandler)
        }
        var all: [WakeUp]
        switch wakeUps {
        case .none: all = []
        case .drain(let drain): all = [.drain(drain)]
        case .inline(let handler): all = [.inline(Observer(queue: nil, handler: handler))]
        case .many(let list): all = list
        }
        all += overflow.cancelHandlers.map(WakeUp.cancelHandler)
        overflow.cancelHandlers = []
        return (.many(all), firstCancelHandler)
    }

    /// Starts the drains and runs the bookkeeping observers a settlement set off.
    @inlinable
    func wake(_ wakeUps: WakeUps, _ result: Result<Value, any Error>) {
        switch wakeUps {
        case .none:
            break
        case .drain(let drain):
            start(drain.kind, on: drain.queue)
        case .inline(let handler):
            Trampoline.run(handler, with: result)
        case .many(let list):
            for wakeUp in list {
                switch wakeUp {
                case .drain(let drain): start(drain.kind, on: drain.queue)
                case .inline(let observer): Trampoline.run(observer.handler, with: result)
                case .cancelHandler: break
                }
            }
        }
    }

    /// Sends the job that runs the handlers queued for `queue` to that queue.
    @inlinable
    func start(_ kind: Drain.Kind, on queue: DispatchQueue) {
        switch kind {
        case .primary:
            // Captures only `self`, which Swift uses as the closure context: no allocation.
            JobQueue.async(on: queue) { self.drain(nil) }
        case .other:
            JobQueue.async(on: queue) { self.drain(queue) }
        }
    }

    /// Runs the handlers queued for one queue, in order, until none is left.
    ///
    /// - Parameter assigned: The drain's queue, or `nil` for the primary drain, whose queue
    ///   is `State.primaryQueue`.
    @inlinable
    func drain(_ assigned: DispatchQueue?) {
        withSettledResult { result in
            while let observer = lock.withLock({ _ in state.next(for: assigned) }) {
                observer.handler(result)
            }
        }
    }
}

extension Result {
    @inlinable
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
