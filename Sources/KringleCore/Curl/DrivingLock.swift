#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The lock whose holder drives a ``CurlEngine``: only the thread holding it touches the
/// multi handle, the easy handles and the ``CurlDriver``'s state.
///
/// The driving thread holds it except while it sleeps for sockets or is lent to the
/// promises' queue; a thread that submits a request to an idle engine takes it and starts
/// the transfer itself (``CurlEngine/submit(_:responseBodyFile:responseBodyHandle:progress:limits:channel:promise:id:)``),
/// so that the request goes out without waking the driving thread. Holding it marks the
/// thread as driving the engine (``ThreadConfinement``), which debug builds check.
///
/// A POSIX mutex, like ``/KringlePromise/Locked``'s, so that ThreadSanitizer sees it.
final class DrivingLock: @unchecked Sendable {
    // Unchecked: the mutex is only used through pthread calls, which order every access.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// What the calling thread drove before it took the lock, for ``unlock(_:)`` to restore
    /// (a thread that holds one engine's lock may start a request on another).
    struct Holding {
        fileprivate let previous: UInt
    }

    /// Waits for the lock and takes it.
    func lock() -> Holding {
        pthread_mutex_lock(mutex)
        return Holding(previous: ThreadConfinement.markCurrentThread(asDriving: self))
    }

    func unlock(_ holding: Holding) {
        ThreadConfinement.restoreMark(holding.previous)
        pthread_mutex_unlock(mutex)
    }

    /// Whether the calling thread may wait for the lock: it holds no transport's (a thread
    /// that waits for one lock while it holds another could wait for ever).
    static var mayWait: Bool {
        ThreadConfinement.drivesNothing
    }

    /// Debug builds stop unless the calling thread holds the lock.
    func assertHeld(_ function: StaticString = #function) {
        ThreadConfinement.assertDriving(self, function)
    }
}
