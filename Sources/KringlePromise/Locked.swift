import Synchronization

/// A mutex-guarded value that closures can share (a `Mutex` itself cannot be captured).
@usableFromInline
final class Locked<State: Sendable>: Sendable {
    @usableFromInline let mutex: Mutex<State>

    @inlinable
    init(_ state: State) {
        mutex = Mutex(state)
    }

    @inlinable
    func withLock<Result: Sendable>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try mutex.withLock { try body(&$0) }
    }
}
