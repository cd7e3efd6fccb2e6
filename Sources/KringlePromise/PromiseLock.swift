#if KRINGLE_TSAN
/// The per-promise lock for ThreadSanitizer runs (`-Xswiftc -DKRINGLE_TSAN`): ``Locked``'s
/// pthread mutex, whose hand-offs ThreadSanitizer understands. Synchronization's `Mutex`
/// waits on raw futexes on Linux, which ThreadSanitizer cannot see, so every access it
/// guards would be reported as a race. It costs an allocation per promise, which only
/// matters outside such runs.
@usableFromInline
typealias PromiseLock = Locked<Void>
#else
import Synchronization

/// The per-promise lock: Synchronization's `Mutex`, stored inline in the promise.
@usableFromInline
typealias PromiseLock = Mutex<Void>
#endif
