import Foundation
import KringlePromise

/// An error for tests to throw and recognise.
struct TestError: Error, Equatable {
    var code = 0
}

/// A value shared between threads behind an `NSLock`: a pthread mutex, which
/// ThreadSanitizer understands (Synchronization's `Mutex` waits on raw futexes, which it
/// cannot see), so these helpers stay quiet under `--sanitize=thread`.
final class Shared<Value: Sendable>: @unchecked Sendable {
    // `value` is only touched while `lock` is held.
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// Collects values from many threads in arrival order.
final class Recorder<Element: Sendable>: Sendable {
    private let storage = Shared<[Element]>([])

    func append(_ element: Element) {
        storage.withLock { $0.append(element) }
    }

    var elements: [Element] {
        storage.withLock { $0 }
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let storage = Shared(0)

    @discardableResult
    func increment() -> Int {
        storage.withLock {
            $0 += 1; return $0
        }
    }

    var value: Int {
        storage.withLock { $0 }
    }
}

/// A flag that can be set once and read from any thread.
final class Flag: Sendable {
    private let storage = Shared(false)

    func set() { storage.withLock { $0 = true } }
    var isSet: Bool { storage.withLock { $0 } }
}

/// Something to hold weakly, to prove that a promise released what it captured.
final class Canary: Sendable {}

extension Promise {
    /// The settled result, waiting at most `seconds` so a broken promise fails the test
    /// instead of hanging the suite.
    func settled(within seconds: TimeInterval = 30) async -> Result<Value, any Error> {
        do {
            return .success(try await timeout(seconds).value)
        } catch {
            return .failure(error)
        }
    }

    /// The value, or the error thrown; waits at most `seconds`.
    func valueWithin(_ seconds: TimeInterval = 30) async throws -> Value {
        try await settled(within: seconds).get()
    }
}

/// Waits until `condition` holds, polling, for at most `seconds`; returns whether it held.
func eventually(within seconds: TimeInterval = 5, _ condition: () -> Bool) async -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while Date() < deadline {
        if condition() { return true }
        // Polling: real time between looks; the deadline only bounds a wait that has failed.
        try? await Task.sleep(nanoseconds: 1_000_000)
    }
    return condition()
}

/// Runs blocking `body` on a thread of its own, so that it does not hold one of Swift
/// concurrency's few cooperative threads while it blocks.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Waits a moment of real time: a window for an event that must not happen (a handler that
/// should be skipped, a second settlement) to show up before the check that follows. A slow
/// machine can only make that check miss a bug, never fail correct code.
func allowTimeForAWrongEvent(_ seconds: TimeInterval = 0.02) async {
    try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
}
