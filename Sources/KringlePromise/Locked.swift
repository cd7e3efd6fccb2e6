#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A mutex-guarded value that closures can share (a `Mutex` itself cannot be captured).
///
/// A pthread mutex rather than Synchronization's `Mutex`: on Linux the latter waits on raw
/// futexes, which ThreadSanitizer cannot see, so every access it guards would be reported
/// as a race when the tests run under `--sanitize=thread`.
@usableFromInline
// `state` is only read or written between `pthread_mutex_lock` and `pthread_mutex_unlock`.
final class Locked<State: Sendable>: @unchecked Sendable {
    @usableFromInline var state: State
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    @inlinable
    init(_ state: State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
