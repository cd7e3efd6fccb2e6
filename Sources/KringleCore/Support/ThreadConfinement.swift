#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Which thread runs a line, stated where it matters and checked in debug builds.
///
/// A thread that drives a transport (`CurlDriver`) is marked while it holds the engine's
/// `DrivingLock`. Code
/// confined to that thread (libcurl's handles, its callbacks, the state they touch without a
/// lock) checks that it runs there; code that must never run there (a decode, an
/// interceptor: work that may take long or block, and would stall every transfer of the
/// transport) checks that it does not. The checks are `assert`s: a debug build stops at the
/// first line that runs on the wrong thread, and a release build compiles them away.
enum ThreadConfinement {
    /// Marks the calling thread as the one that drives `owner`, and returns the mark it had,
    /// for ``restoreMark(_:)``.
    static func markCurrentThread(asDriving owner: AnyObject) -> UInt {
        let previous = driven
        pthread_setspecific(drivenKey.key, UnsafeRawPointer(bitPattern: identity(of: owner)))
        return previous
    }

    /// Gives the calling thread back the mark ``markCurrentThread(asDriving:)`` returned.
    static func restoreMark(_ mark: UInt) {
        pthread_setspecific(drivenKey.key, UnsafeRawPointer(bitPattern: mark))
    }

    /// Whether the calling thread drives no transport (and holds none of their locks).
    static var drivesNothing: Bool {
        driven == 0
    }

    /// Debug builds stop unless the calling thread is the one that drives `owner`.
    static func assertDriving(_ owner: AnyObject, _ function: StaticString = #function) {
        assert(driven == identity(of: owner), "\(function) must run on the thread that drives its transport")
    }

    /// Debug builds stop unless the calling thread drives a transport (for state that any
    /// driving thread may own, and that does not know which).
    static func assertOnDrivingThread(_ function: StaticString = #function) {
        assert(driven != 0, "\(function) must run on a transport's driving thread")
    }

    /// Debug builds stop if the calling thread drives a transport: `function` may take long
    /// or run user code, and would hold up every transfer of that transport.
    static func assertOffDrivingThreads(_ function: StaticString = #function) {
        assert(driven == 0, "\(function) must not run on a transport's driving thread")
    }

    /// The identity of the owner the calling thread drives; 0 for none.
    private static var driven: UInt {
        UInt(bitPattern: pthread_getspecific(drivenKey.key))
    }

    private static func identity(of owner: AnyObject) -> UInt {
        UInt(bitPattern: ObjectIdentifier(owner))
    }

    /// The thread's mark: an identity to compare, not a reference (nothing is retained).
    private static let drivenKey = Key()

    private struct Key: Sendable {
        let key: pthread_key_t

        init() {
            var key = pthread_key_t()
            pthread_key_create(&key, nil)
            self.key = key
        }
    }
}
