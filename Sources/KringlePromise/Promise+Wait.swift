import Foundation

extension Promise {
    /// Blocks the calling thread until the promise settles, and returns its value.
    ///
    /// Meant for scripts and command-line tools that chain promises and then need the
    /// answer before they exit:
    /// ```swift
    /// let cats = try client.get(CatEndpoint.cats, as: [Cat].self).wait()
    /// ```
    /// While it waits, the calling thread runs pending handlers bound for
    /// ``Dispatch/DispatchQueue/promises`` (and, on the main thread, those bound for
    /// `DispatchQueue.main`), so it does not deadlock when called on the main thread for a
    /// chain with main-queue handlers, nor from inside handlers on the library's queues.
    /// Do not call it on a serial queue of yours that a handler of the same chain needs.
    /// The client hands the decode of a small response to the thread waiting for it, which
    /// is awake for it anyway; and a transport that sent a request from this thread may let
    /// it wait for the answer on the transport's socket itself (`CurlTransport` does), so
    /// that the answer wakes this thread rather than the transport's.
    ///
    /// (Inlinable, so that reading the value is compiled for `Value` where it is called:
    /// generic, it would look up type metadata at run time on every call. The waiting itself
    /// never touches the value, and is not.)
    ///
    /// - Parameter timeout: Seconds to wait at most; `nil` waits as long as it takes.
    /// - Throws: The rejection error, or ``PromiseError/timedOut`` when `timeout` passes
    ///   first (the promise itself is left untouched).
    @inlinable @discardableResult
    public func wait(timeout: TimeInterval? = nil) throws -> Value {
        try waitUntilSettled(timeout: timeout)
        guard let value = try withSettledResult({ try $0.get() }) else { throw PromiseError.timedOut }
        return value
    }

    /// Blocks the calling thread until the promise settles, running promise work meanwhile
    /// (see ``wait(timeout:)``); throws ``PromiseError/timedOut`` when `timeout` passes first.
    @usableFromInline
    func waitUntilSettled(timeout: TimeInterval?) throws {
        let deadline: DispatchTime = timeout.map { .now() + $0 } ?? .distantFuture
        let assistant = PromiseWaitAssistance.take()
        DeferredPromiseJobs.runKeptJobs()
        let helped = JobQueue.isOnMainQueue ? [JobQueue.main, .promises] : [.promises]
        // Help before getting ready to sleep: the work this promise waits for was often just
        // queued from this thread, and running it here, while its data is still in this
        // core's cache, beats waking a worker for it.
        while isPending, helped.contains(where: { $0.runOne() }) {}
        let wakeUp = WaitWakeUp()
        // The job that settles this promise may be handed to this thread (see `Claim`).
        // Not with a time-out: the job may outlast it.
        let claim = Claim { wakeUp.signal() }
        if timeout == nil { register(claim) }
        observeInline(target: wakeUp) { _, wakeUp in unsafeDowncast(wakeUp, to: WaitWakeUp.self).signal() }
        defer { claim.close()?.dispatch() }
        try JobQueue.whileWaking(wakeUp, on: helped) {
            while isPending {
                if let offer = claim.take() {
                    offer.run()
                    continue
                }
                if helped.contains(where: { $0.runOne() }) { continue }
                // Sleep where the answer this thread waits for will wake it: a transport's
                // sockets, if one sent a request from here (PromiseWaitAssistant).
                if let assistant, assistant.assist(until: deadline, wakeUp: wakeUp) {
                    if deadline <= .now(), isPending { throw PromiseError.timedOut }
                    continue
                }
                if wakeUp.semaphore.wait(timeout: deadline) == .timedOut, isPending { throw PromiseError.timedOut }
            }
        }
    }
}
