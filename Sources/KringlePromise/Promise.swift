// Which thread runs my `done`, and when?
//
// Follow `promise.done { … }` from `promise.fulfill(value)` to the handler. Everything named
// here without a file is in this file; each step is one function.
//
// 1. Registering: `done`, like every operator, calls `derive` (both in Promise+Then.swift),
//    which calls `observe(on:target:_:)` with a handler that will read the outcome, run your
//    closure through `UserCode.run(_:)` (UserCode.swift) and then settle its target, the
//    promise `done` returned (`react`, Promise+Then.swift). `observe` appends an `Observer`
//    (queue, handler and target) to the promise's `state` under its lock; on a promise
//    already settled, it starts that queue's drain (step 3).
//
// 2. Settling: `fulfill`, `reject` and `resolve`, `cancel()` (Promise+Cancel.swift), an
//    adoption (Promise+Adopt.swift) and every operator's handler end in `settle(_:)`, the
//    one place a promise settles. Under the lock it stores the outcome, moves `phase` out of
//    `.pending` and takes the wake-ups out of `state` (`PromiseState.takeWakeUps()`,
//    PromiseState.swift):
//    one drain per queue that has handlers, the library's inline observers, the cancel
//    handlers.
//    After the lock, in registration order, it starts each drain (step 3) and runs each
//    inline observer (step 5); on a cancellation it then runs the cancel handlers as user
//    code. So `fulfill` never runs your closure itself: it only sends a job to its queue.
//
// 3. Choosing the thread: `startDrain(_:on:)` hands the drain's job to
//    `DispatchQueue.sendPromiseJob(_:)`, the one place that picks the thread:
//    - the default queue, `DispatchQueue.promises` (concurrent, the library's own): when
//      this thread is itself running a job of that queue (a handler that has just settled
//      the next link), the job is kept and run by this same thread as soon as that job
//      returns (`DeferredPromiseJobs`), so a chain of handlers runs as a loop on one worker,
//      still one handler after another; otherwise it goes to `JobQueue.promises`
//      (JobQueue.swift), which asks the queue for a worker thread and which a thread blocked
//      in `wait()` may run first (step 6);
//    - the main queue: `JobQueue.main`, which the main thread may run while it waits;
//    - any other queue you name: `queue.async`, nothing more: your serial queue runs it.
//
// 4. Running the handlers: the job calls `drain(_:)`, the one place handlers run. It takes
//    the queue's observers one at a time under the lock and calls each outside it, in
//    registration order, giving it the settled promise; a handler registered for that queue
//    meanwhile (even from inside a handler) joins the same drain, behind the others. The
//    handler is `derive`'s: it reads the outcome, your closure runs through
//    `UserCode.run(_:)`, which keeps nothing back for this thread, so your closure may block
//    on promise work it started; then the handler settles the next link: step 2 again, on
//    this thread.
//
// 5. Inline plumbing: `observeInline(target:_:)` is for the library's own tiny steps (adoption,
//    `all`, `timeout`, the client's pipeline, at the end of Promise+Then.swift). They run on the
//    settling thread through `Trampoline` (Trampoline.swift), which runs a step that a step
//    sets off after it rather than inside it, so a long chain of them is a loop, not a
//    recursion. Your closures never run inline.
//
// 6. Waiters: a thread blocked in `wait()` (Promise+Wait.swift) runs jobs of
//    `JobQueue.promises` (and, on the main thread, of `JobQueue.main`) while it waits, so it
//    may run your handler. The client's decode job may be handed to the thread waiting for
//    its promise, in `wait()` or `await value` (`Claim`, Claim.swift).
//
// 7. Lent threads: a thread that settles promises in a loop of its own (Kringle's curl
//    transport, as responses arrive) may settle them inside
//    `DispatchQueue.runLentToPromises(setAside:_:)` (DeferredPromiseJobs.swift): it is then
//    running a job of `.promises`, so what the settling sets off on that queue (the client's
//    decode included) is kept and run by that thread, as after a handler (step 3); while a
//    handler runs, the rest waits aside (LentJobs.swift). The lender sees to it that a handler
//    which blocks there holds up nothing (Kringle: DrivingSeat.swift).
//
// In short: your `done` runs on the queue you name (`.promises` if none), never inside
// `fulfill`, after the handlers registered before it for that queue. On `.promises` the
// thread may be the one that ran the previous link, one blocked in `wait()`, or one lent to
// the queue by the code that settled the promise.
//
// What is compiled where: only what depends on the value's type is inlinable, compiled
// for that type in the caller's module (the operators and `derive`, recording and reading the
// outcome, `wait()`, the client's decode step), so that it never looks up generic metadata
// at run time. Everything else (steps 1 to 6 above, the state they keep) never touches a
// value: a handler is given the settled promise and reads the outcome itself, so that
// bookkeeping is compiled once, here, and called.

import Dispatch
import Synchronization

extension DispatchQueue {
    /// The queue promise handlers run on when you name none.
    ///
    /// A concurrent queue of the library's own, not the main queue: command-line tools and
    /// servers have no main run loop, and unrelated chains must not wait behind each other.
    /// Handlers of one promise registered for this queue still run in registration order.
    public static let promises = DispatchQueue(label: "kringle.promises", attributes: .concurrent)

    /// Runs `job`, promise work bound for this queue, asynchronously: the one place that
    /// picks the thread (step 3 of the walk at the top of this file).
    ///
    /// The library sends all its work for a queue through here (drains, `Promise { }`
    /// bodies, `retry`'s attempts), so that threads blocked in `wait()` can pick it up.
    func sendPromiseJob(_ job: consuming @escaping @Sendable () -> Void) {
        if self === DispatchQueue.promises {
            // When a job of this queue set it off, this thread runs it next; otherwise a
            // worker of the queue, or a thread that helps while it waits.
            DeferredPromiseJobs.keepOrSubmit(job)
        } else if JobQueue.isMain(self) {
            // The main thread, in its run loop or while it waits.
            JobQueue.main.submit(job)
        } else {
            async(execute: job)
        }
    }
}

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
/// Every operator is a thin layer over one internal primitive (`observe(on:target:_:)`), so the
/// ordering, threading and exactly-once rules are written once: in this file, whose header
/// walks from `fulfill` to a handler, and in the state it keeps (`PromiseState.swift`).
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
    // Unchecked because `lock` guards `state`, `dependency`, `outcome` and
    // `outcomeIsReference`. Two kinds of access need no lock: the last two are written once,
    // with the lock held, before `phase` leaves `.pending` (a releasing store), and never
    // again, so whoever sees a settled `phase` (an acquiring load) may read them; and `deinit`
    // runs when no other reference is left. The properties are `@exclusivity(unchecked)`
    // because the lock already serialises every access: the run-time exclusivity check would
    // only add a call to each one.
    //
    // The layout is chosen for a fast `deinit` and a small promise. Swift cannot specialise
    // the `deinit` of a generic class, so it destroys each property through the property's
    // type metadata, and finding the metadata of a type that depends on `Value` (`Value?`, a
    // struct generic over `Value` whose layout varies with it) is a search of the runtime's
    // tables, costing as much as the rest of a short-lived promise's life. So no property's
    // type depends on `Value`: the state holds only references and closures, and the outcome
    // is one word (see `stored(_:)`, Promise+Storage.swift). And a promise takes 72 bytes
    // (allocated as 80): the lock, the phase and `outcomeIsReference` share a word, the state
    // takes four (`PromiseState`), the dependency one, the outcome one. A chain holds one
    // promise per link, so every word counts: a recursive chain of a million links holds a
    // million of them at once.

    let lock = PromiseLock(())
    @usableFromInline let phase: Atomic<Phase>
    /// Whether `outcome` holds a reference, which `deinit` releases: set with it.
    @usableFromInline @exclusivity(unchecked) var outcomeIsReference = false
    @exclusivity(unchecked) var state = PromiseState.empty
    /// The pending promise whose settlement this one waits for (for cancellation and cycle
    /// detection); any others are in the state's overflow. Weak because the upstream promise
    /// holds this one (through the handler that will settle it): a strong reference would
    /// keep a dropped pending chain alive. Only read while pending, so never cleared. An
    /// `AnyObject` (one word) rather than an `any PromiseNode` (two), and only read, and cast
    /// back, when cancelling, looking for an adoption cycle or handing observers over.
    @exclusivity(unchecked) weak var dependency: AnyObject?
    /// The outcome as stored (see `stored(_:)`): written once, before `phase` leaves
    /// `.pending`.
    @usableFromInline @exclusivity(unchecked) var outcome: UInt64 = 0

    /// A pending promise.
    @usableFromInline
    init() {
        phase = Atomic(.pending)
    }

    /// A pending promise that waits for `upstream`, if any (for cancellation and cycle
    /// detection).
    @usableFromInline
    init<Upstream>(dependingOn upstream: Promise<Upstream>?) {
        phase = Atomic(.pending)
        // A weak property starts as `nil`; assigning `nil` again would be a runtime call.
        if let upstream { dependency = upstream }
    }

    /// A promise settled from the start.
    @inlinable
    init(settled result: Result<Value, any Error>) {
        let stored = Self.stored(result)
        phase = Atomic(stored.phase)
        outcome = stored.word
        outcomeIsReference = stored.isReference
    }

    deinit {
        // Nobody else holds the promise any more, so no lock is needed.
        if outcomeIsReference { StoredOutcome.release(outcome) }
        // Most promises hold nothing by now and skip the rest. So does a settled one: its
        // observers have all run, as each drain holds the promise until it is done, and what
        // its overflow still holds (queues, weak dependencies) is released as any property is.
        guard case .pending = phase.load(ordering: .relaxed) else { return }
        if case .empty = state { return }
        // A dropped pending chain frees its links one by one, not recursively (rule 7/8):
        // what the observers hold is moved out, for the trampoline to release. (Passed as it
        // is made: a local would keep it until the end of this `deinit`.)
        Trampoline.release(Leftovers(taking: &state))
    }

    // MARK: - State queries

    // These read `phase` alone, without the lock: it is atomic, and the outcome it reports
    // never changes once settled.

    /// Whether the promise has not settled yet.
    @inlinable
    public var isPending: Bool {
        phase.load(ordering: .acquiring) == .pending
    }

    /// Whether the promise was fulfilled with a value.
    public var isFulfilled: Bool {
        phase.load(ordering: .acquiring) == .fulfilled
    }

    /// Whether the promise was rejected (cancellation included).
    public var isRejected: Bool {
        let phase = phase.load(ordering: .acquiring)
        return phase == .rejected || phase == .cancelled
    }

    /// Whether the promise was settled by ``cancel()`` (itself or through a promise
    /// depending on it).
    public var isCancelled: Bool {
        phase.load(ordering: .acquiring) == .cancelled
    }

    /// The outcome, or `nil` while the promise is pending.
    @inlinable
    public var result: Result<Value, any Error>? {
        settledResult
    }

    // MARK: - Observing: the primitive every operator builds on

    /// Runs `handler` on `queue` once the promise has settled, with `target`, what it acts on
    /// (see `Reaction`); never synchronously.
    ///
    /// Handlers registered for the same queue run one after another in registration
    /// order, including handlers registered from inside another handler. The operators run
    /// the user's closure inside `handler` through `UserCode.run(_:)`.
    @usableFromInline
    func observe(
        on queue: DispatchQueue, target: consuming any AnyObject & Sendable,
        _ handler: consuming @escaping PromiseHandler
    ) {
        // Moved, not copied, from the caller into the state: a closure can only borrow what
        // it captures, but it can take it out of an optional.
        var observer = Optional(Observer(queue: queue, reaction: Reaction(handler: handler, target: target)))
        let drain: Drain.Kind? = lock.withLock { _ in
            // `phase` only changes with the lock held, so a relaxed load is enough here.
            guard phase.load(ordering: .relaxed) != .pending else {
                state.append(observer.take()!)
                return nil
            }
            return state.appendSettled(observer.take()!)
        }
        if let drain { startDrain(drain, on: queue) }
    }

    /// Runs library bookkeeping as soon as the promise settles, on the settling thread, with
    /// `target`, what it acts on (see `Reaction`).
    ///
    /// For internal use where the work is tiny and thread-safe (settling another promise,
    /// counting results); user closures always go through ``observe(on:target:_:)``.
    @usableFromInline
    func observeInline(target: any AnyObject & Sendable, _ handler: @escaping PromiseHandler) {
        // Settled already (the outcome never changes then): no need for the lock.
        guard isPending else { return Trampoline.run(Reaction(handler: handler, target: target), on: self) }
        let settled: Bool = lock.withLock { _ in
            guard phase.load(ordering: .relaxed) == .pending else { return true }
            state.append(Observer(queue: nil, reaction: Reaction(handler: handler, target: target)))
            return false
        }
        if settled { Trampoline.run(Reaction(handler: handler, target: target), on: self) }
    }

    // MARK: - Settling: the one place

    /// Fulfils (a success) or rejects (a failure) the promise; returns `false`, changing
    /// nothing, when it had settled already.
    @inlinable @discardableResult
    func settle(_ result: Result<Value, any Error>) -> Bool {
        // Made ready before the lock is taken: a value to box is boxed outside it.
        settle(Self.stored(result))
    }

    /// Settles the promise with `outcome` (step 2 of the walk at the top of this file): every
    /// settlement, cancellation included, comes through here, with the outcome as stored (see
    /// `stored(_:)`, the only part that depends on the value's type). Returns `false`,
    /// changing nothing and releasing the outcome, when the promise had settled already.
    @usableFromInline @discardableResult
    func settle(_ outcome: StoredOutcome) -> Bool {
        let settled: PromiseState.Settled? = lock.withLock { _ in
            guard phase.load(ordering: .relaxed) == .pending else { return nil }
            self.outcome = outcome.word
            outcomeIsReference = outcome.isReference
            phase.store(outcome.phase, ordering: .releasing)
            return state.takeWakeUps()
        }
        guard let (wakeUps, firstCancelHandler) = consume settled else {
            outcome.discard()
            return false
        }
        switch wakeUps {
        case .none:
            break
        case .drain(let drain):
            startDrain(drain.kind, on: drain.queue)
        case .inline(let reaction):
            Trampoline.run(reaction, on: self)
        case .many(let list):
            for wakeUp in list {
                switch wakeUp {
                case .drain(let drain): startDrain(drain.kind, on: drain.queue)
                case .inline(let reaction): Trampoline.run(reaction, on: self)
                case .cancelHandler: break
                }
            }
        }
        // Any other settlement releases the cancel handlers here, outside the lock, without
        // running them.
        if outcome.phase == .cancelled, let firstCancelHandler {
            Self.runCancelHandlers(first: firstCancelHandler, among: wakeUps)
        }
        return true
    }

    /// Runs a cancelled promise's cancel handlers, in the order they were registered, as user
    /// code: the library may cancel from its own steps. Apart from `settle(_:)`, so that the
    /// usual settlement carries none of it.
    @inline(never)
    static func runCancelHandlers(first: CancelHandler, among wakeUps: WakeUps) {
        UserCode.run {
            first.run()
            if case .many(let list) = wakeUps {
                for case .cancelHandler(let handler) in list { handler.run() }
            }
        }
    }

    // MARK: - Running the handlers: the one place

    /// Sends the job that runs the handlers queued for `queue` to that queue (step 3 of the
    /// walk at the top of this file).
    func startDrain(_ kind: Drain.Kind, on queue: DispatchQueue) {
        switch kind {
        case .primary:
            // Captures only `self`, which Swift uses as the closure context: no allocation.
            queue.sendPromiseJob { self.drain(nil) }
        case .other:
            queue.sendPromiseJob { self.drain(queue) }
        }
    }

    /// Runs the handlers queued for one queue, in order, until none is left (step 4 of the
    /// walk at the top of this file).
    ///
    /// - Parameter assigned: The drain's queue, or `nil` for the primary drain, whose queue
    ///   the state keeps (see `PromiseState`).
    func drain(_ assigned: DispatchQueue?) {
        while var reaction = lock.withLock({ _ in state.next(for: assigned) }) {
            reaction.run(self)
        }
    }
}

/// What a pending promise still held when it was freed (see `Promise.deinit`). Not nested in
/// `Promise`, which would make it generic: the `deinit` would look up its metadata.
private final class Leftovers {
    let state: PromiseState

    /// Takes `state` from a promise, leaving it empty.
    init(taking state: inout PromiseState) {
        self.state = state
        state = .empty
    }
}

// MARK: - Making a promise, and settling it by hand (step 2 of the walk)

extension Promise {
    /// Creates a pending promise that you settle later with ``fulfill(_:)`` or ``reject(_:)``.
    ///
    /// ```swift
    /// let promise = Promise<String>.pending()
    /// DispatchQueue.global().async { promise.fulfill("done") }
    /// ```
    @inlinable
    public static func pending() -> Promise<Value> {
        Promise()
    }

    /// Creates a promise that is already fulfilled with `value`.
    @inlinable
    public convenience init(_ value: Value) {
        self.init(settled: .success(value))
    }

    /// Creates a promise that is already rejected with `error`.
    @inlinable
    public convenience init(error: any Error) {
        self.init(settled: .failure(error))
    }

    /// Creates a promise whose `body` runs asynchronously on `queue` and settles it.
    ///
    /// A throw from `body` rejects the promise. Only the first call of `fulfill` or `reject`
    /// counts. `body` may block until promise work it started has run, as on any concurrent
    /// queue.
    ///
    /// ```swift
    /// let promise = Promise<Int> { fulfill, reject in
    ///     fulfill(computeAnswer())
    /// }
    /// ```
    /// - Parameters:
    ///   - queue: Where `body` runs; ``Dispatch/DispatchQueue/promises`` by default.
    ///   - body: Receives the two functions that settle the promise.
    public convenience init(
        on queue: DispatchQueue = .promises,
        _ body:
            @escaping @Sendable (
                _ fulfill: @escaping @Sendable (Value) -> Void,
                _ reject: @escaping @Sendable (any Error) -> Void
            ) throws -> Void
    ) {
        self.init()
        queue.sendPromiseJob {
            UserCode.run {
                do {
                    try body({ self.fulfill($0) }, { self.reject($0) })
                } catch {
                    self.reject(error)
                }
            }
        }
    }

    /// Fulfils a pending promise with `value`; does nothing if it has settled already.
    @inlinable
    public func fulfill(_ value: Value) {
        settle(.success(value))
    }

    /// Rejects a pending promise with `error`; does nothing if it has settled already.
    @inlinable
    public func reject(_ error: any Error) {
        settle(.failure(error))
    }

    /// Settles a pending promise with `result`; does nothing if it has settled already.
    @inlinable
    public func resolve(_ result: Result<Value, any Error>) {
        settle(result)
    }
}

extension Result {
    @inlinable
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
