// The one lock of every Kringle module, a POSIX mutex rather than the standard library's or
// Foundation's, for the reason given at its type: ThreadSanitizer must see it.

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A mutex-guarded value that closures can share (a `Mutex` itself cannot be captured): the
/// one lock of every Kringle module (`@_spi(KringleInternals)`), so that all of them are
/// visible to ThreadSanitizer. (Each promise's own lock is `PromiseLock`, kept inline.)
///
/// A pthread mutex rather than Synchronization's `Mutex`: on Linux the latter waits on raw
/// futexes, which ThreadSanitizer cannot see, so every access it guards would be reported
/// as a race when the tests run under `--sanitize=thread`.
@_spi(KringleInternals)
public final class Locked<State: Sendable>:
    // `state` is only read or written between `pthread_mutex_lock` and `pthread_mutex_unlock`.
    @unchecked Sendable
{
    /// Unchecked for exclusivity: the mutex already serialises every access, and the
    /// run-time check would add two calls to each.
    @usableFromInline @exclusivity(unchecked) var state: State
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A lock guarding `state`.
    @inlinable
    public init(_ state: State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the state, the lock held.
    @inlinable
    public func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}

extension Locked where State == Void {
    /// Runs `body` with the lock held, for a lock that serialises work rather than guarding
    /// a value (`Locked(())`). Chosen over the general ``withLock(_:)`` wherever the state is
    /// statically empty: an inout access to a zero-sized stored property has no address of
    /// its own (it is the next property's, the mutex pointer, read before locking), so
    /// ThreadSanitizer reported a race on every use; a local has an address of its own.
    @inlinable
    public func withLock<Result>(_ body: (inout Void) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var nothing: Void = ()
        return try body(&nothing)
    }
}
