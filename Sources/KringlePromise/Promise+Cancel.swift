import Dispatch
import Synchronization

extension Promise {
    /// Cancels the promise and the pending work it depends on.
    ///
    /// A pending promise is rejected with ``PromiseError/cancelled`` and runs the handlers its
    /// producer registered with ``onCancel(_:)``. The cancellation then travels upstream to
    /// every pending promise this one was derived from (by `then`, `all`, `timeout`, an
    /// adopted promise…), so cancelling the end of a chain stops the work at its start: an
    /// HTTP request, a scheduled retry, a delay. Promises further down the chain are rejected
    /// with the same error, so `catch` handlers see it. Cancelling a settled promise does
    /// nothing.
    ///
    /// Upstream promises are shared: cancelling one chain built on a promise also rejects
    /// the other chains built on it.
    public func cancel() {
        Self.cancel([self])
    }

    /// Cancels `nodes` and the pending work they depend on.
    static func cancel(_ nodes: [any PromiseNode]) {
        // Iterative on purpose: a chain may be a million links long.
        var work = nodes
        while let node = work.popLast() {
            work.append(contentsOf: node.cancelAndCollectDependencies())
        }
    }

    /// Registers work to run if this promise is cancelled before it settles.
    ///
    /// Producers use it to stop what they started:
    /// ```swift
    /// let promise = Promise<Data>.pending()
    /// let task = session.dataTask(with: url) { … }
    /// promise.onCancel { task.cancel() }
    /// ```
    /// The handler runs on the thread that calls ``cancel()``, at most once (a
    /// ``timeout(_:clock:)`` on the real clock cancels from a thread of
    /// ``Dispatch/DispatchQueue/promises``, never from its timer's). If the promise was
    /// already cancelled it runs at once; if it settled otherwise it never runs. It may block
    /// until promise work it started has run, even when the library itself cancels (a chain
    /// cancelled while a handler ran cancels the promise that handler returned).
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = lock.withLock { _ -> Bool in
            let phase = phase.load(ordering: .relaxed)
            guard phase == .pending else { return phase == .cancelled }
            state.extra().append(CancelHandler(handler))
            return false
        }
        if runNow { UserCode.run(handler) }
    }
}

// MARK: - Dependencies: the way upstream

// Cancellation travels upstream along these: each pending promise records the promises it
// waits for (the one it was derived from, the inputs of `all`, the promise it adopts), and
// `cancel()` walks them. Adoption checks them for cycles too.

extension Promise: PromiseNode {
    /// A pending promise that waits for all of `upstream`.
    convenience init(dependingOn upstream: [any PromiseNode]) {
        self.init()
        if let first = upstream.first { dependency = first }
        if upstream.count > 1 {
            state.extra().dependencies = upstream.dropFirst().map(WeakNode.init)
        }
    }

    /// A pending promise that waits for all of `upstream`, promises of one type.
    @usableFromInline
    convenience init<Upstream>(dependingOnAll upstream: [Promise<Upstream>]) {
        self.init(dependingOn: upstream.map { $0 as any PromiseNode })
    }

    /// Records that this pending promise now also waits for `upstream`.
    @usableFromInline
    func addDependency<Upstream>(_ upstream: Promise<Upstream>) {
        lock.withLock { _ in
            guard phase.load(ordering: .relaxed) == .pending else { return }
            if dependency == nil {
                dependency = upstream
            } else {
                state.extra().dependencies.append(WeakNode(node: upstream))
            }
        }
    }

    /// Records that this pending promise now waits for `upstream` alone: for an adoption,
    /// which comes once what it waited for has settled (a settled promise can be neither
    /// cancelled nor part of a cycle, so it needs no dependency).
    func waitOnly(for upstream: AnyObject) {
        lock.withLock { _ in
            guard phase.load(ordering: .relaxed) == .pending else { return }
            dependency = upstream
            if let overflow = state.overflow, !overflow.dependencies.isEmpty { overflow.dependencies = [] }
        }
    }

    var pendingDependencies: [any PromiseNode] {
        lock.withLock { _ in phase.load(ordering: .relaxed) == .pending ? dependencyNodes : [] }
    }

    /// The promises this one waits for that still exist. Called with the lock held.
    var dependencyNodes: [any PromiseNode] {
        var nodes: [any PromiseNode] = []
        if let node = dependency as? any PromiseNode { nodes.append(node) }
        if let overflow = state.overflow { nodes += overflow.dependencies.compactMap(\.node) }
        return nodes
    }

    func cancelAndCollectDependencies() -> [any PromiseNode] {
        guard settle(.cancelled) else { return [] }
        // Read after the settlement, which froze them: `addDependency` adds one only while
        // the promise is pending, so a dependency added during the cancellation is either
        // here or sees the cancellation itself (`adopt` checks `isCancelled` after adding).
        return lock.withLock { _ in dependencyNodes }
    }

    /// Whether `target` is this promise or one it waits for, through pending promises.
    ///
    /// The walk is bounded so that a very long pending chain costs little; a cycle further
    /// away than the bound is not seen.
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

    /// Records that this pending promise waits for `new` where it waited for `old`, a promise
    /// that has stepped aside for `new` (see ``stepAside(for:)``).
    func replaceDependency(_ old: AnyObject, with new: AnyObject) {
        lock.withLock { _ in
            guard phase.load(ordering: .relaxed) == .pending else { return }
            if dependency === old {
                dependency = new
            } else if let overflow = state.overflow,
                let index = overflow.dependencies.firstIndex(where: { $0.node === old })
            {
                overflow.dependencies[index] = WeakNode(node: new as? any PromiseNode)
            }
        }
    }
}

extension Promise {
    /// Cancels this promise from a timer's work on `clock`: on a clock that measures real
    /// time, as a job of ``Dispatch/DispatchQueue/promises``, because ``onCancel(_:)``
    /// handlers are user code that may block, and the timer queue must never wait for them
    /// (every other timer of the process would wait too); on any other clock (a test's), at
    /// once, so that the test sees the cancellation when its clock's timers have run.
    @_spi(KringleInternals)
    public func cancel(fromTimerOf clock: any KringleClock) {
        guard clock.measuresRealTime else { return cancel() }
        DispatchQueue.promises.sendPromiseJob { self.cancel() }
    }

    /// Cancels what this promise, settled from a timer's work on `clock` (a time-out), waited
    /// for, as ``cancel(fromTimerOf:)`` would.
    func cancelDependencies(fromTimerOf clock: any KringleClock) {
        let upstream = lock.withLock { _ in dependencyNodes }
        guard clock.measuresRealTime else { return Self.cancel(upstream) }
        DispatchQueue.promises.sendPromiseJob { Self.cancel(upstream) }
    }
}
