/// The one rule for running code that a user handed to the library.
///
/// **The rule: user code that blocks must not deadlock the promise machinery.** A closure
/// handed to KringlePromise may block until promise work it started has run, as it may on
/// any concurrent queue: wait on a `DispatchSemaphore` or a `DispatchGroup` that a handler
/// signals, or call ``Promise/wait(timeout:)``. So nothing that handler needs may be kept for
/// the thread the closure blocks: the library keeps work back for its own steps only (see
/// ``Trampoline`` and ``DeferredPromiseJobs``), and turns that off for user code.
///
/// Every closure that comes from outside the library runs through ``run(_:)``: operator
/// handlers (through `Promise.derive`), `Promise { }` bodies, `retry`'s work and condition,
/// cancel handlers, the client's decode step (`Promise.mapSuccess`). A new place that calls
/// user code must call it through here too; `BlockingUserCodeTests` has a case for each.
///
/// (A closure that blocks still holds its thread: on a serial queue of the user's, work
/// bound for that same queue waits behind it. That is the queue's rule, not the library's.)
@usableFromInline
enum UserCode {
    /// Runs `body`, a closure a user handed to the library, under the rule above.
    ///
    /// Before `body`:
    /// - promise jobs deferred to this thread earlier go back to the queue (on a transport's
    ///   lent driving thread they are set aside, for the transport to send back if `body`
    ///   takes long: ``LentJobs``), and those that `body` sets off are not deferred (other
    ///   threads run them);
    /// - bookkeeping queued on this thread's trampoline runs, and what `body` sets off runs at
    ///   once rather than after it.
    ///
    /// Once `body` returns, the library's own follow-up (settling the next link) is deferred
    /// again as it was. One thread-local look-up per call (`PromiseThread`): on the path of
    /// every handler.
    ///
    /// Not generic, so that a caller in another module (an operator, inlined there) calls a
    /// version compiled here for it, with no type metadata to pass and look at: a caller that
    /// needs a result keeps it in a variable `body` sets.
    ///
    /// - Parameter body: The user's code.
    @usableFromInline
    static func run(_ body: () -> Void) {
        PromiseThread.withCurrent { thread in
            // Deferral off first, so that what the trampoline's drain sets off goes to the queue.
            let entry = thread.deferredJobs.beginUserCode()
            let wasDraining = thread.trampoline.beginUserCode()
            body()
            thread.trampoline.endUserCode(wasDraining: wasDraining)
            thread.deferredJobs.endUserCode(entry)
        }
    }
}
