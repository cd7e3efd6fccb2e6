// Each promise's own lock: Synchronization's `Mutex`, with its critical sections announced to
// ThreadSanitizer in sanitizer runs.

import Synchronization

#if KRINGLE_TSAN
import CThreadSanitizer
#endif

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
struct PromiseLock: ~Copyable, Sendable {
    let mutex: Mutex<Void>

    init(_ value: Void) {
        precondition(
            kringle_tsan_is_active() == 1,
            "KRINGLE_TSAN is set but CThreadSanitizer was not compiled for ThreadSanitizer: use --sanitize=thread")
        mutex = Mutex(value)
    }

    /// `Mutex.withLock`, with the critical section announced to ThreadSanitizer.
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
typealias PromiseLock = Mutex<Void>
#endif
