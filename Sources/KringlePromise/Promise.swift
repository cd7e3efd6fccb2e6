import Dispatch
import Synchronization

/// A value that will be available later, or an error explaining why it will not.
///
/// A promise starts pending and settles exactly once: fulfilled with a value or rejected
/// with an error. Handlers attached with ``then(on:_:)-1g6zs``, ``catch(on:_:)`` and the
/// other operators run asynchronously on a dispatch queue (by default
/// ``Dispatch/DispatchQueue/promises``, never the main queue) once it settles.
///
/// ```swift
/// let answer = Promise<Int>.pending()
/// answer
///     .then { $0 * 2 }
///     .then { print("doubled:", $0) }
///     .catch { print("failed:", $0) }
/// answer.fulfill(21)
/// ```
///
/// Promises are thread-safe: any thread may settle, observe or cancel one at any time.
/// Every operator is a thin layer over one internal primitive (``observe(on:_:)``), so the
/// ordering, threading and exactly-once rules live in this file only.
public final class Promise<Value: Sendable>: Sendable {
    @usableFromInline typealias Handler = @Sendable (Result<Value, any Error>) -> Void

    @usableFromInline let state: Mutex<State>
    /// Whether observers or cancel handlers may be stored: lets `deinit` skip the lock (and
    /// the generic state) for the many promises that hold nothing when they go.
    @usableFromInline let mayHoldWork = Atomic<Bool>(false)

    @usableFromInline struct State: Sendable {
        /// `nil` while pending.
        @usableFromInline var result: Result<Value, any Error>?
        /// Handlers waiting for the settlement.
        @usableFromInline var observers: [Observer] = []
        /// After the settlement: handlers still to run, one run per queue, so that handlers
        /// for the same queue run in registration order even on a concurrent queue.
        @usableFromInline var runs: [Run] = []
        /// What the producer asked to do if the promise is cancelled.
        @usableFromInline var cancelHandlers: [@Sendable () -> Void] = []
        /// The pending promises whose settlement this one waits for (weak: they hold us).
        @usableFromInline var dependencies = Dependencies.none
        @usableFromInline var isCancelled = false

        @inlinable
        init(result: Result<Value, any Error>? = nil, dependencies: Dependencies = .none) {
            self.result = result
            self.dependencies = dependencies
        }
    }

    @usableFromInline enum Observer: Sendable {
        /// A handler to run on a queue.
        case queued(DispatchQueue, Handler)
        /// Library bookkeeping that runs on the settling thread (through the trampoline);
        /// never user code.
        case inline(Handler)
    }

    @usableFromInline struct Run: Sendable {
        @usableFromInline let queue: DispatchQueue
        @usableFromInline var handlers: [Handler]
        @usableFromInline var next = 0

        @inlinable
        init(queue: DispatchQueue, handlers: [Handler]) {
            self.queue = queue
            self.handlers = handlers
        }
    }

    @inlinable
    init(state: State) {
        self.state = Mutex(state)
    }

    deinit {
        guard mayHoldWork.load(ordering: .acquiring) else { return }
        // A dropped pending chain frees its links one by one, not recursively (rule 7/8).
        Trampoline.release(state.withLock { state -> AnyObject? in
            guard !state.observers.isEmpty || !state.cancelHandlers.isEmpty else { return nil }
            let leftovers = Leftovers(observers: state.observers, cancelHandlers: state.cancelHandlers)
            state.observers = []
            state.cancelHandlers = []
            return leftovers
        })
    }

    /// What a pending promise still held when it was freed.
    private final class Leftovers {
        let observers: [Observer]
        let cancelHandlers: [@Sendable () -> Void]

        init(observers: [Observer], cancelHandlers: [@Sendable () -> Void]) {
            self.observers = observers
            self.cancelHandlers = cancelHandlers
        }
    }

    // MARK: - The primitive every operator builds on

    /// Runs `handler` on `queue` once the promise has settled; never synchronously.
    ///
    /// Handlers registered for the same queue run one after another in registration
    /// order, including handlers registered from inside another handler.
    @inlinable
    func observe(on queue: DispatchQueue, _ handler: @escaping Handler) {
        let startDrain: Result<Value, any Error>? = state.withLock { state in
            guard let result = state.result else {
                state.observers.append(.queued(queue, handler))
                mayHoldWork.store(true, ordering: .releasing)
                return nil
            }
            if let index = state.runs.firstIndex(where: { $0.queue === queue }) {
                state.runs[index].handlers.append(handler)
                return nil
            }
            state.runs.append(Run(queue: queue, handlers: [handler]))
            return result
        }
        if let startDrain {
            startDraining(queue, startDrain)
        }
    }

    /// Runs library bookkeeping as soon as the promise settles, on the settling thread.
    ///
    /// For internal use where the work is tiny and thread-safe (settling another promise,
    /// counting results); user closures always go through ``observe(on:_:)``.
    @inlinable
    func observeInline(_ handler: @escaping Handler) {
        let settled: Result<Value, any Error>? = state.withLock { state in
            guard let result = state.result else {
                state.observers.append(.inline(handler))
                mayHoldWork.store(true, ordering: .releasing)
                return nil
            }
            return result
        }
        if let settled {
            Trampoline.schedule { handler(settled) }
        }
    }

    /// Settles the promise; returns `false` (and changes nothing) when it had settled already.
    @inlinable @discardableResult
    func settle(_ result: Result<Value, any Error>) -> Bool {
        let observers: [Observer]? = state.withLock { state in
            guard state.result == nil else { return nil }
            return Self.settleLocked(&state, with: result)
        }
        guard let observers else { return false }
        dispatch(observers, result)
        return true
    }

    /// Records the result and returns the observers to notify once the lock is released.
    @inlinable
    static func settleLocked(_ state: inout State, with result: Result<Value, any Error>) -> [Observer] {
        state.result = result
        state.dependencies = .none
        // Settled: a cancel can no longer happen, so what it would have stopped is let go.
        state.cancelHandlers.removeAll()
        let observers = state.observers
        state.observers = []
        for case .queued(let queue, let handler) in observers {
            if let index = state.runs.firstIndex(where: { $0.queue === queue }) {
                state.runs[index].handlers.append(handler)
            } else {
                state.runs.append(Run(queue: queue, handlers: [handler]))
            }
        }
        return observers
    }

    /// Starts one drain per queue and runs the inline observers.
    @inlinable
    func dispatch(_ observers: [Observer], _ result: Result<Value, any Error>) {
        var started: [DispatchQueue] = []
        for observer in observers {
            switch observer {
            case .queued(let queue, _):
                guard !started.contains(where: { $0 === queue }) else { continue }
                started.append(queue)
                startDraining(queue, result)
            case .inline(let handler):
                Trampoline.schedule { handler(result) }
            }
        }
    }

    @inlinable
    func startDraining(_ queue: DispatchQueue, _ result: Result<Value, any Error>) {
        JobQueue.async(on: queue) { self.drain(queue, result) }
    }

    /// Runs the handlers queued for `queue`, in order, until none is left.
    @inlinable
    func drain(_ queue: DispatchQueue, _ result: Result<Value, any Error>) {
        while let handler = nextHandler(for: queue) {
            handler(result)
        }
    }

    @inlinable
    func nextHandler(for queue: DispatchQueue) -> Handler? {
        let (handler, finished): (Handler?, Run?) = state.withLock { state in
            guard let index = state.runs.firstIndex(where: { $0.queue === queue }) else { return (nil, nil) }
            let next = state.runs[index].next
            guard next < state.runs[index].handlers.count else {
                return (nil, state.runs.remove(at: index))
            }
            state.runs[index].next = next + 1
            return (state.runs[index].handlers[next], nil)
        }
        // A finished run's handlers are released here, outside the lock.
        withExtendedLifetime(finished) {}
        return handler
    }
}

// MARK: - Dependencies

/// A promise seen without its value type: what cancellation and cycle detection walk.
@usableFromInline
protocol PromiseNode: AnyObject, Sendable {
    /// Cancels this promise if it is pending and returns the promises it was waiting for.
    func cancelAndCollectDependencies() -> [any PromiseNode]
    /// The still-pending promises this pending promise waits for.
    var pendingDependencies: [any PromiseNode] { get }
}

@usableFromInline
struct WeakNode: Sendable {
    @usableFromInline weak var node: (any PromiseNode)?

    @inlinable
    init(node: any PromiseNode) {
        self.node = node
    }
}

/// The promises a pending promise waits for; one upstream is by far the common case.
@usableFromInline
enum Dependencies: Sendable {
    case none
    case one(WeakNode)
    case many([WeakNode])

    @inlinable
    var nodes: [any PromiseNode] {
        switch self {
        case .none: return []
        case .one(let weak): return weak.node.map { [$0] } ?? []
        case .many(let weaks): return weaks.compactMap(\.node)
        }
    }

    @inlinable
    mutating func append(_ node: any PromiseNode) {
        switch self {
        case .none: self = .one(WeakNode(node: node))
        case .one(let first): self = .many([first, WeakNode(node: node)])
        case .many(let weaks): self = .many(weaks + [WeakNode(node: node)])
        }
    }
}

extension Promise: PromiseNode {
    /// A pending promise that waits for `upstream` (for cancellation and cycle detection).
    @inlinable
    convenience init(dependingOn upstream: any PromiseNode) {
        self.init(state: State(dependencies: .one(WeakNode(node: upstream))))
    }

    /// A pending promise that waits for all of `upstream`.
    @inlinable
    convenience init(dependingOn upstream: [any PromiseNode]) {
        self.init(state: State(dependencies: .many(upstream.map { WeakNode(node: $0) })))
    }

    /// Records that this pending promise now also waits for `node`.
    @inlinable
    func addDependency(_ node: any PromiseNode) {
        state.withLock { state in
            if state.result == nil { state.dependencies.append(node) }
        }
    }

    @usableFromInline
    var pendingDependencies: [any PromiseNode] {
        state.withLock { $0.result == nil ? $0.dependencies.nodes : [] }
    }

    @usableFromInline
    func cancelAndCollectDependencies() -> [any PromiseNode] {
        let taken = state.withLock { state -> (observers: [Observer], handlers: [@Sendable () -> Void], upstream: [any PromiseNode])? in
            guard state.result == nil else { return nil }
            state.isCancelled = true
            let handlers = state.cancelHandlers
            state.cancelHandlers = []
            let upstream = state.dependencies.nodes
            let observers = Self.settleLocked(&state, with: .failure(PromiseError.cancelled))
            return (observers, handlers, upstream)
        }
        guard let taken else { return [] }
        dispatch(taken.observers, .failure(PromiseError.cancelled))
        for handler in taken.handlers { handler() }
        return taken.upstream
    }

    /// Whether `target` is this promise or one it waits for, through pending promises.
    ///
    /// The walk is bounded so that a very long pending chain costs little; a cycle further
    /// away than the bound is not seen.
    @inlinable
    func waits(for target: AnyObject) -> Bool {
        var frontier: [any PromiseNode] = [self]
        var visited = 0
        while let node = frontier.popLast(), visited < 10_000 {
            if node === target { return true }
            visited += 1
            frontier.append(contentsOf: node.pendingDependencies)
        }
        return false
    }

    /// Makes this promise settle as `inner` does (Promises/A+ 2.3.2), or reject with
    /// ``PromiseError/adoptionCycle`` when `inner` waits for this promise.
    @inlinable
    func adopt(_ inner: Promise<Value>) {
        if inner.waits(for: self) {
            settle(.failure(PromiseError.adoptionCycle))
            return
        }
        addDependency(inner)
        inner.observeInline { result in self.settle(result) }
        // Cancelled while the handler that produced `inner` was still running: the
        // dependency above came too late to carry the cancellation, so pass it on now.
        if isCancelled { inner.cancel() }
    }
}
