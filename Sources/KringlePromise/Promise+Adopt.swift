// Adoption (Promises/A+ 2.3.2): a promise settles as another one does, the one a handler
// returned (`then`, `recoverWith`) or Kringle's plumbing follows (`continueInline`).

extension Promise {
    /// Makes `target`, the pending promise an operator's handler settles, settle as `inner`
    /// does (see ``adopt(_:checkingForCycles:)``).
    @usableFromInline
    static func adopt(_ inner: Promise<Value>, settling target: inout any AnyObject & Sendable) {
        unsafeDowncast(target, to: Promise<Value>.self).adopt(inner)
    }

    /// Makes this promise settle as `inner` does (Promises/A+ 2.3.2), or reject with
    /// ``PromiseError/adoptionCycle`` when `inner` waits for this promise. Nothing here
    /// depends on the value's type: the outcome is copied as stored (`settle(asSettled:)`).
    ///
    /// - Parameter checkingForCycles: `false` skips the walk up `inner`'s pending
    ///   dependencies, for the library's own plumbing, whose promises never wait for their
    ///   own results.
    @usableFromInline
    func adopt(_ inner: Promise<Value>, checkingForCycles: Bool = true) {
        // A settled promise waits for nothing and cannot be cancelled: take its outcome.
        if !inner.isPending {
            settle(asSettled: inner)
            return
        }
        if checkingForCycles, inner.waits(for: self) {
            settle(StoredOutcome(phase: .rejected, retaining: ErrorBox(PromiseError.adoptionCycle)))
            return
        }
        addDependency(inner)
        inner.observeInline(target: self) { settled, adopter in
            unsafeDowncast(adopter, to: Promise<Value>.self).settle(asSettled: settled)
        }
        // Cancelled while the handler that produced `inner` was still running: the
        // dependency above came too late to carry the cancellation, so pass it on now.
        if isCancelled { inner.cancel() }
    }
}
