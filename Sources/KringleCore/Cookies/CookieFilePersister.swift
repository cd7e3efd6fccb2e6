import Dispatch
import Foundation
@_spi(KringleInternals) import KringlePromise
import Synchronization

/// Writes a jar's persistent cookies to its file, coalescing bursts of changes.
///
/// A change calls ``scheduleSave()``, which arms one delayed write on a private
/// serial queue; every change until that write runs rides along with it, so a burst
/// of a hundred `store` calls costs one or two writes. ``flush()`` writes at once.
/// Each write is an atomic replace (``CookieJarFile/writeAtomically(_:to:)``).
final class CookieFilePersister: Sendable {
    /// The jar's file.
    let fileURL: URL
    private let store: LockedCookieStore
    private let queue: DispatchQueue
    private let delay: DispatchTimeInterval
    private let state: Locked<State>

    private struct State {
        /// Whether a delayed write is armed.
        var isScheduled = false
        /// The store revision the file holds.
        var writtenRevision: UInt64
        /// How many times the file was written (for tests of coalescing).
        var writeCount = 0
        /// The last write failure, cleared by the next successful write.
        var lastError: CookieJar.PersistenceError?
    }

    /// - Parameters:
    ///   - fileURL: Where to write.
    ///   - store: The state to write.
    ///   - delay: How long to wait after a change before writing.
    ///   - writtenRevision: The store revision already on disk (just loaded).
    init(fileURL: URL, store: LockedCookieStore, delay: DispatchTimeInterval, writtenRevision: UInt64) {
        self.fileURL = fileURL
        self.store = store
        self.delay = delay
        self.queue = DispatchQueue(label: "Kringle.CookieJar.persistence")
        self.state = Locked(State(writtenRevision: writtenRevision))
    }

    /// Arms a delayed write unless one is already armed.
    func scheduleSave() {
        let arm = state.withLock { state -> Bool in
            if state.isScheduled { return false }
            state.isScheduled = true
            return true
        }
        guard arm else { return }
        queue.asyncAfter(deadline: .now() + delay) { [weak self] in
            self?.writeIfNeeded()
        }
    }

    /// Writes pending changes now, waiting for the write to finish.
    func flush() {
        queue.sync { writeIfNeeded() }
    }

    /// How many writes have happened.
    var writeCount: Int { state.withLock { $0.writeCount } }

    /// The most recent write failure, if the last write failed.
    var lastError: CookieJar.PersistenceError? { state.withLock { $0.lastError } }

    /// Runs on ``queue``: writes the store if it changed since the last write.
    private func writeIfNeeded() {
        // Disarm first: a change made after the snapshot below arms a new write.
        state.withLock { $0.isScheduled = false }
        let (revision, cookies) = store.withLock { ($0.revision, $0.persistentCookies) }
        guard revision != state.withLock({ $0.writtenRevision }) else { return }
        let data: Data
        do {
            data = try CookieJarFile.encode(cookies)
        } catch {
            state.withLock { $0.lastError = .unwritable(fileURL, underlying: error) }
            return
        }
        do {
            try CookieJarFile.writeAtomically(data, to: fileURL)
        } catch {
            state.withLock { $0.lastError = error }
            return
        }
        state.withLock { state in
            state.writtenRevision = revision
            state.writeCount += 1
            state.lastError = nil
        }
    }
}
