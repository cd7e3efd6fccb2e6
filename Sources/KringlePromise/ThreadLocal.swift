// A per-thread slot read without a lock, from POSIX threads rather than Foundation, for the
// reason given at its type.

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One `Object` per thread, made on a thread's first use and released when the thread exits:
/// the home of each thread's `PromiseThread`.
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

    /// The calling thread's object, unretained: the slot holds it until the thread exits.
    var current: Unmanaged<Object> {
        if let existing = pthread_getspecific(key) {
            return Unmanaged<Object>.fromOpaque(existing)
        }
        let created = Unmanaged.passRetained(Object())
        pthread_setspecific(key, created.toOpaque())
        return created
    }
}
