@_spi(KringleInternals) import KringlePromise

/// A ``CookieStore`` behind a lock, shared by a ``CookieJar`` and its file
/// persister. Every access goes through ``withLock(_:)``.
final class LockedCookieStore: Sendable {
    private let mutex: Locked<CookieStore>

    init(_ store: CookieStore) {
        mutex = Locked(store)
    }

    /// Runs `body` with exclusive access to the store.
    func withLock<Result: Sendable>(_ body: (inout CookieStore) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }
}
