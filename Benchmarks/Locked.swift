import Synchronization

/// A value behind a mutex, for results handed between benchmark threads.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    func get() -> Value { mutex.withLock { $0 } }
    func set(_ value: Value) { mutex.withLock { $0 = value } }
    func update(_ change: (inout Value) -> Void) { mutex.withLock { change(&$0) } }
}
