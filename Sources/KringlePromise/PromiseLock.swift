#if KRINGLE_TSAN
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The per-promise lock for ThreadSanitizer runs (`-Xswiftc -DKRINGLE_TSAN`): a pthread
/// mutex, whose hand-offs ThreadSanitizer understands. Synchronization's `Mutex` waits on raw
/// futexes on Linux, which ThreadSanitizer cannot see, so every access it guards would be
/// reported as a race. Same interface as `Mutex<Void>`; it costs an allocation per promise,
/// which only matters outside such runs. Not `Locked<Void>`: an inout access to a
/// zero-sized stored property has no address of its own, and ThreadSanitizer then reports
/// accesses to unrelated promises as races.
@usableFromInline
// Only touched through `pthread_mutex_lock`/`unlock`, which are thread-safe.
final class PromiseLock: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    @inlinable
    init(_: Void) {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable
    func withLock<Result>(_ body: (inout Void) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var nothing: Void = ()
        return try body(&nothing)
    }
}
#else
import Synchronization

/// The per-promise lock: Synchronization's `Mutex`, stored inline in the promise.
@usableFromInline
typealias PromiseLock = Mutex<Void>
#endif
