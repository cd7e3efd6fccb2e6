import Synchronization

/// A mutex-guarded value that closures can share (a `Mutex` itself cannot be captured).
final class Locked<State: Sendable>: Sendable {
    private let mutex: Mutex<State>

    init(_ state: State) {
        mutex = Mutex(state)
    }

    func withLock<Result: Sendable>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try mutex.withLock { try body(&$0) }
    }
}
