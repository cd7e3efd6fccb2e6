import Dispatch

/// What wakes a thread blocked in ``Promise/wait(timeout:)``: a semaphore, and while the thread
/// waits for a transport's sockets (``PromiseWaitAssistant``), that transport's interrupt.
@_spi(KringleInternals)
public final class WaitWakeUp: Sendable {
    let semaphore = DispatchSemaphore(value: 0)

    private struct State: Sendable {
        /// Set by every signal; taken by ``whileInterrupting(with:_:)``, which must not start
        /// a wait that a signal from before would not interrupt.
        var isSignalled = false
        var interrupt: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    /// A wake-up for one `wait()`.
    public init() {}

    /// Wakes the waiting thread, wherever it sleeps.
    public func signal() {
        let interrupt = state.withLock { state in
            state.isSignalled = true
            return state.interrupt
        }
        semaphore.signal()
        interrupt?()
    }

    /// Runs `body` (a wait for a transport's sockets) with `interrupt` called on every signal
    /// meanwhile; returns `nil` without running it when a signal came since the last call.
    public func whileInterrupting<T>(with interrupt: @escaping @Sendable () -> Void, _ body: () -> T) -> T? {
        let wasSignalled = state.withLock { state in
            defer { state.isSignalled = false }
            if !state.isSignalled { state.interrupt = interrupt }
            return state.isSignalled
        }
        guard !wasSignalled else { return nil }
        defer { state.withLock { $0.interrupt = nil } }
        return body()
    }
}
