/// What the library keeps for each thread: its ``Trampoline`` and its ``DeferredPromiseJobs``,
/// behind one per-thread slot, so that code that needs both (``UserCode/run(_:)``, on the path
/// of every handler) looks the thread up once.
final class PromiseThread: PerThreadObject {
    let trampoline = Trampoline()
    let deferredJobs = DeferredPromiseJobs()
    /// The transport that started a request from this thread last, whose sockets a `wait()`
    /// here may wait on (``PromiseWaitAssistant``). Only this thread touches it;
    /// `@exclusivity(unchecked)` for the reason given at ``Trampoline``.
    @exclusivity(unchecked) weak var waitAssistant: (any PromiseWaitAssistant)?

    private static let perThread = ThreadLocal<PromiseThread>()

    /// Calls `body` with the calling thread's objects, lent rather than retained: they live as
    /// long as the thread, and `body` runs on it.
    static func withCurrent<T>(_ body: (PromiseThread) throws -> T) rethrows -> T {
        try perThread.current._withUnsafeGuaranteedRef(body)
    }
}
