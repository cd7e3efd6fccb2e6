// Adoption (Promises/A+ 2.3.2): a promise settles as another one does, the one a handler
// returned (`then`, `recoverWith`) or Kringle's plumbing follows (`continueInline`).

extension Promise {
    /// Makes `target`, the pending promise an operator's handler settles, settle as `inner`
    /// does (see ``adopt(_:checkingForCycles:steppingAside:)``). When that handler's reference
    /// is the only one left, nobody can observe `target` but through the handlers it holds,
    /// so it steps aside for `inner` rather than waiting for it (see ``stepAside(for:)``).
    @usableFromInline
    static func adopt(_ inner: Promise<Value>, settling target: inout any AnyObject & Sendable) {
        // Moved out of the existential, without a retain, and asked as a `Promise`: asked
        // through an existential, `isKnownUniquelyReferenced` answers `false` in debug builds.
        var adopter = unsafeDowncast(consume target, to: Promise<Value>.self)
        let unobserved = isKnownUniquelyReferenced(&adopter)
        adopter.adopt(inner, steppingAside: unobserved)
        target = adopter
    }

    /// Makes this promise settle as `inner` does (Promises/A+ 2.3.2), or reject with
    /// ``PromiseError/adoptionCycle`` when `inner` waits for this promise. Nothing here
    /// depends on the value's type: the outcome is copied as stored (`settle(asSettled:)`).
    ///
    /// - Parameters:
    ///   - checkingForCycles: `false` skips the walk up `inner`'s pending dependencies, for
    ///     the library's own plumbing, whose promises never wait for their own results.
    ///   - steppingAside: Whether nothing but the caller holds this promise, so that it may
    ///     step aside for a pending `inner` (``stepAside(for:)``).
    @usableFromInline
    func adopt(_ inner: Promise<Value>, checkingForCycles: Bool = true, steppingAside: Bool = false) {
        // A settled promise waits for nothing and cannot be cancelled: take its outcome.
        if !inner.isPending {
            settle(asSettled: inner)
            return
        }
        if checkingForCycles, inner.waits(for: self) {
            settle(StoredOutcome(phase: .rejected, retaining: ErrorBox(PromiseError.adoptionCycle)))
            return
        }
        waitOnly(for: inner)
        if steppingAside, stepAside(for: inner) { return }
        inner.observeInline(target: self) { settled, adopter in
            Promise.lending(adopter) { _ = $0.settle(asSettled: settled) }
        }
        // Cancelled while the handler that produced `inner` was still running: the
        // dependency above came too late to carry the cancellation, so pass it on now.
        if isCancelled { inner.cancel() }
    }

    /// Adoption by stepping aside: moves this pending promise's observers to `inner`, which
    /// it adopts, behind `inner`'s own, so that they run when `inner` settles, given `inner`
    /// (the same type, the same outcome); and makes the promises they settle wait for `inner`
    /// instead. Returns `false`, changing nothing, when this promise has settled or holds
    /// anything but observers (cancel handlers, a claim, more dependencies).
    ///
    /// Only for a promise that nothing holds but the handler adopting for it (see
    /// ``adopt(_:settling:)``): nobody can then observe it any more but through its
    /// observers, so once they have moved it is freed, rather than held by `inner` until
    /// `inner` settles. A recursion that returns, link after link, a promise still pending
    /// (Promises/A+ rule 7's chain of a million steps built by recursion) then holds one
    /// promise per link, not two. Anyone who still reaches it by a weak dependency (a
    /// cancellation travelling upstream) finds it pending, waiting for `inner`, which it
    /// recorded first: cancelling it cancels `inner`, which the moved observers see.
    func stepAside(for inner: Promise<Value>) -> Bool {
        let observers: [Observer]? = lock.withLock { _ in
            guard phase.load(ordering: .relaxed) == .pending else { return nil }
            switch state {
            case .empty:
                return []
            case .one(let observer):
                state = .empty
                return [observer]
            case .overflow(let overflow):
                guard overflow.firstCancelHandler == nil, overflow.claim == nil, overflow.dependencies.isEmpty
                else { return nil }
                state = .empty
                return overflow.takeObservers()
            case .draining:
                return nil
            }
        }
        guard let observers else { return false }
        for observer in observers {
            (observer.reaction.target as? any PromiseNode)?.replaceDependency(self, with: inner)
            if let queue = observer.queue {
                inner.observe(on: queue, target: observer.reaction.target, observer.reaction.handler)
            } else {
                inner.observeInline(target: observer.reaction.target, observer.reaction.handler)
            }
        }
        return true
    }
}
