import Foundation
@_spi(KringleInternals) import KringlePromise

/// A value shared between threads behind the modules' own lock, which ThreadSanitizer sees
/// (Synchronization's `Mutex` waits on raw futexes, which it cannot), so test helpers stay
/// quiet under `Scripts/tsan.sh`.
public final class Box<Value: Sendable>: Sendable {
    private let storage: Locked<Value>

    /// A box holding `value`.
    public init(_ value: Value) {
        storage = Locked(value)
    }

    /// The value now.
    public var value: Value {
        storage.withLock { $0 }
    }

    /// Runs `body` with the value, the lock held, and returns what it returns (the shape of
    /// Synchronization's `Mutex.withLock`).
    @discardableResult
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withLock { try body(&$0) }
    }
}

/// Collects values from many threads, in arrival order.
public final class Recorder<Element: Sendable>: Sendable {
    private let storage = Box<[Element]>([])

    /// An empty recorder.
    public init() {}

    /// Adds `element` at the end.
    public func append(_ element: Element) {
        storage.withLock { $0.append(element) }
    }

    /// Everything appended so far.
    public var elements: [Element] {
        storage.value
    }
}

/// A thread-safe counter.
public final class Counter: Sendable {
    private let storage = Box(0)

    /// A counter at zero.
    public init() {}

    /// Adds one and returns the new count.
    @discardableResult
    public func increment() -> Int {
        storage.withLock {
            $0 += 1
            return $0
        }
    }

    /// The count now.
    public var value: Int {
        storage.value
    }
}

/// A flag that is set once and read from any thread.
public final class Flag: Sendable {
    private let storage = Box(false)

    /// A flag not yet set.
    public init() {}

    /// Sets the flag.
    public func set() {
        storage.withLock { $0 = true }
    }

    /// Whether the flag has been set.
    public var isSet: Bool {
        storage.value
    }
}

/// An error for tests to throw and recognise.
public struct TestError: Error, Equatable {
    /// Tells errors apart.
    public var code: Int

    /// An error with `code`.
    public init(code: Int = 0) {
        self.code = code
    }
}
