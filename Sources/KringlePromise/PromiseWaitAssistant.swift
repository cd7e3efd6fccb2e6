import Dispatch

/// A transport whose sockets a thread blocked in ``Promise/wait(timeout:)`` may wait on in
/// the place of the transport's own thread.
///
/// A script that sends a request and waits for it would otherwise sleep until the transport's
/// thread, woken by the answer, wakes it in turn: two threads woken per request where one
/// would do. When the transport started a request from this thread
/// (``PromiseWaitAssistance/offer(_:)``), `wait()` lets the transport use the blocked thread
/// instead: the answer then wakes the thread that waits for it, which settles the response
/// and runs what follows itself.
@_spi(KringleInternals)
public protocol PromiseWaitAssistant: AnyObject, Sendable {
    /// Waits for the transport's sockets until one is ready (and moves its transfers, settling
    /// the ones that finish), `wakeUp` is signalled, or `deadline` passes. Returns `false` at
    /// once, having waited for nothing, when it cannot help (another thread does, or nothing
    /// is running), and the caller blocks as usual.
    func assist(until deadline: DispatchTime, wakeUp: WaitWakeUp) -> Bool
}
