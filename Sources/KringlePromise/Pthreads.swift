// What KringlePromise takes from POSIX threads rather than from the standard library or
// Foundation, each for a reason given at its type: the mutexes (`Locked`, shared by every
// Kringle module, and `PromiseLock`, each promise's own), which ThreadSanitizer must see;
// and `ThreadLocal`, a per-thread slot read without a lock.

import Synchronization

#if KRINGLE_TSAN
import CThreadSanitizer
#endif

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - The mutexes

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

#if KRINGLE_TSAN
/// The per-promise lock for ThreadSanitizer runs (`-Xswiftc -DKRINGLE_TSAN`): the production
/// lock, Synchronization's `Mutex`, stored inline as in other builds, with each critical
/// section announced to the sanitizer.
///
/// Why announce it: on Linux only the uncontended `Mutex` is taken and released by an atomic
/// operation inlined into Kringle's code, which the sanitizer instruments. A contended one
/// is taken by the standard library's own compiled code (`_lockSlow`: a spin, then a
/// priority-inheritance futex, `FUTEX_LOCK_PI`, with which the kernel makes the waiter the
/// owner) and released through the kernel (`_unlockSlow`, `FUTEX_UNLOCK_PI`): none of it is
/// instrumented, so the sanitizer never learns that the waiter acquired what the last owner
/// released, and reports what the lock guards as a race. So the holder calls
/// `__tsan_acquire` on the mutex's address once it has the lock and `__tsan_release` before
/// it lets go (CThreadSanitizer), as the sanitizer's own interceptors do for a pthread
/// mutex. The lock, its fast path and its futex waits are the ones every other build runs.
@usableFromInline
struct PromiseLock: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<Void>

    @inlinable
    init(_ value: Void) {
        precondition(
            kringle_tsan_is_active() == 1,
            "KRINGLE_TSAN is set but CThreadSanitizer was not compiled for ThreadSanitizer: use --sanitize=thread")
        mutex = Mutex(value)
    }

    /// `Mutex.withLock`, with the critical section announced to ThreadSanitizer.
    @inlinable
    borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Void) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        // The mutex's own address (its futex word's), the key only this lock uses: the same on
        // every call, as a borrowed noncopyable value is never copied.
        let address = withUnsafePointer(to: mutex) { UnsafeRawPointer($0) }
        return try mutex.withLock { (nothing: inout sending Void) throws(E) -> sending Result in
            kringle_tsan_acquire(address)
            defer { kringle_tsan_release(address) }
            return try body(&nothing)
        }
    }
}
#else
/// The per-promise lock: Synchronization's `Mutex`, stored inline in the promise.
@usableFromInline
typealias PromiseLock = Mutex<Void>
#endif

// MARK: - ThreadLocal

/// One `Object` per thread, made on a thread's first use and released when the thread exits:
/// the home of the `Trampoline` and the `DeferredPromiseJobs` of each thread.
///
/// A pthread key rather than Foundation's `Thread.current.threadDictionary`: a look-up is a
/// read of the thread's own table, with no lock, no hashing and no boxing, and the library
/// makes one per promise job and per handler.
///
/// It holds the key alone, no closure that makes the object, so that reading it from a
/// global costs no retain: hence ``PerThreadObject``.
struct ThreadLocal<Object: PerThreadObject>: Sendable {
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        // The destructor gets the pointer stored below, never `nil` (POSIX skips `nil`
        // values); the release matches `passRetained`.
        #if canImport(Darwin)
        pthread_key_create(&key) { Unmanaged<AnyObject>.fromOpaque($0).release() }
        #else
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        }
        #endif
        self.key = key
    }

    /// The calling thread's object.
    var current: Object {
        if let existing = pthread_getspecific(key) {
            return Unmanaged<Object>.fromOpaque(existing).takeUnretainedValue()
        }
        let created = Object()
        pthread_setspecific(key, Unmanaged.passRetained(created).toOpaque())
        return created
    }
}

/// An object that ``ThreadLocal`` makes, on each thread that asks for one.
protocol PerThreadObject: AnyObject {
    init()
}
