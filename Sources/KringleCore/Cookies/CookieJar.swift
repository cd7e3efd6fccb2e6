import Dispatch
import Foundation

/// An RFC 6265 cookie jar (with the RFC 6265bis updates) for an HTTP client.
///
/// Give it the `Set-Cookie` headers of every response and ask it for the `Cookie`
/// header of every request:
///
/// ```swift
/// let jar = CookieJar()
/// jar.store(setCookieHeaders: ["sid=31d4d96e; Path=/; Secure; HttpOnly"],
///           from: URL(string: "https://example.com/login")!)
/// jar.cookieHeader(for: URL(string: "https://example.com/account")!) // "sid=31d4d96e"
/// ```
///
/// Cookies are indexed by registrable domain (eTLD+1, from the built-in Public Suffix
/// List), so a lookup only looks at the request host's own domain however many others
/// the jar holds. Domains that are public suffixes (`com`, `co.uk`, `github.io`) are
/// refused. Each domain keeps at most 50 cookies and the jar 3,000 (see ``Limits``).
///
/// Every method that depends on the time takes `now`, defaulting to the current date,
/// so tests can pin the clock. All methods are thread-safe.
///
/// A persistent jar (``init(fileURL:limits:now:)``) saves its persistent cookies after
/// each change, coalesced into one write shortly after a burst; call ``flush()`` to
/// write at once, for example before the process exits.
public final class CookieJar: Sendable {
    /// The cookies, shared with the persister.
    let state: LockedCookieStore
    /// Present for a persistent jar.
    let persister: CookieFilePersister?

    /// What became of the cookies in the jar's file when it was created: how many were
    /// loaded, and how many were dropped and why. Empty for an in-memory jar or a missing
    /// file. See ``LoadReport``.
    public let loadReport: LoadReport

    /// Creates an empty in-memory jar.
    ///
    /// - Parameter limits: How many cookies to keep; RFC 6265 §6.1 minimums by default.
    public init(limits: Limits = .default) {
        state = LockedCookieStore(CookieStore(limits: limits))
        persister = nil
        loadReport = LoadReport()
    }

    /// Creates a jar that persists to `fileURL`, loading what the file holds.
    ///
    /// A missing file is an empty jar (the file is created by the first write). Only
    /// persistent cookies (with an expiry) that have not expired are written; session
    /// cookies live in memory only. Writes replace the file atomically with mode 0600.
    ///
    /// The file is input like any response: it must be a regular file owned by the
    /// current user and not writable by group or others (checked on the opened file, so
    /// the path cannot be swapped after the check), and each cookie in it must pass the
    /// checks of a `Set-Cookie` header. Cookies that fail are dropped and counted in
    /// ``loadReport``. Keep the file in a per-user directory, not in `/tmp`.
    ///
    /// ```swift
    /// var configuration = NetworkClient.Configuration()
    /// configuration.cookieJar = try CookieJar(fileURL: supportDirectory.appendingPathComponent("cookies.json"))
    /// ```
    ///
    /// - Parameters:
    ///   - fileURL: The JSON file to read and write.
    ///   - limits: How many cookies to keep.
    ///   - now: The current time, used to drop cookies that expired while stored.
    /// - Throws: ``PersistenceError/unreadable(_:underlying:)`` when the file exists but
    ///   cannot be read, ``PersistenceError/untrusted(_:_:)`` when someone else could have
    ///   written it, ``PersistenceError/corrupt(_:reason:)`` when its content is not a
    ///   cookie file. The file is never modified in any of these cases.
    public convenience init(fileURL: URL, limits: Limits = .default, now: Date = Date()) throws {
        try self.init(fileURL: fileURL, limits: limits, now: now, saveDelay: .milliseconds(200))
    }

    /// The persistent initializer, with the write coalescing delay exposed for tests.
    init(fileURL: URL, limits: Limits, now: Date, saveDelay: DispatchTimeInterval) throws {
        var initial = CookieStore(limits: limits)
        if let cookies = try CookieJarFile.read(from: fileURL, maximumSize: CookieJarFile.maximumSize(for: limits)) {
            loadReport = initial.load(cookies, now: now)
        } else {
            loadReport = LoadReport()
        }
        let revision = initial.revision
        state = LockedCookieStore(initial)
        persister = CookieFilePersister(fileURL: fileURL, store: state, delay: saveDelay, writtenRevision: revision)
    }

    deinit {
        persister?.flush()
    }

    // MARK: - Storing

    /// Stores the cookies of a response (RFC 6265 §5.3 storage model, RFC 6265bis §5.7
    /// where it differs).
    ///
    /// Each header is judged on its own: an invalid one is ignored and the others are
    /// still stored. A cookie that is already expired deletes the cookie it matches.
    ///
    /// - Parameters:
    ///   - setCookieHeaders: The `Set-Cookie` field values, one per header, in order.
    ///   - url: The URL of the request the response answers.
    ///   - now: The current time.
    public func store(setCookieHeaders: [String], from url: URL, now: Date = Date()) {
        // Most responses set no cookie: then the URL need not be parsed.
        guard !setCookieHeaders.isEmpty, let request = CookieRequestURL(url) else { return }
        let parsed = setCookieHeaders.compactMap(SetCookieParser.parse)
        guard !parsed.isEmpty else { return }
        let changed = state.withLock { store -> Bool in
            let before = store.revision
            for cookie in parsed { store.store(cookie, from: request, now: now) }
            return store.revision != before
        }
        if changed { persister?.scheduleSave() }
    }

    // MARK: - Retrieving

    /// The value of the `Cookie` header for a request (RFC 6265 §5.4), such as
    /// `a=b; c=d`; a nameless cookie appears as just its value.
    ///
    /// - Parameters:
    ///   - url: The request URL.
    ///   - now: The current time; sent cookies get it as their last-access time.
    /// - Returns: The header value, or `nil` when no cookie applies.
    public func cookieHeader(for url: URL, now: Date = Date()) -> String? {
        let cookies = cookies(for: url, now: now)
        guard !cookies.isEmpty else { return nil }
        // RFC 6265bis §5.8.3 step 4: "name=value" (or just the value), joined by "; ".
        var header = ""
        for cookie in cookies {
            if !header.isEmpty { header += "; " }
            if !cookie.name.isEmpty {
                header += cookie.name
                header += "="
            }
            header += cookie.value
        }
        return header
    }

    /// The cookies to send with a request, in `Cookie` header order: longer paths
    /// first, then earlier creation (RFC 6265 §5.4).
    ///
    /// Only cookies whose domain and path match, that have not expired, and — for
    /// `Secure` ones — only over `https` or `wss`. Their last-access time becomes `now`.
    ///
    /// - Parameters:
    ///   - url: The request URL.
    ///   - now: The current time.
    /// - Returns: The cookies, possibly none.
    public func cookies(for url: URL, now: Date = Date()) -> [Cookie] {
        // An empty jar (the usual case for an API client) answers without parsing the URL.
        guard state.withLock({ $0.count }) > 0, let request = CookieRequestURL(url) else { return [] }
        return state.withLock { $0.cookies(for: request, now: now) }
    }

    /// Every cookie in the jar, oldest first. May include cookies that have expired
    /// but were not evicted yet; see ``removeExpired(now:)``.
    public var allCookies: [Cookie] {
        state.withLock { $0.allCookies }
    }

    // MARK: - Removing

    /// Removes every cookie.
    public func removeAll() {
        mutate { $0.removeAll() }
    }

    /// Removes the cookie with the same name, domain and path as `cookie` (whether
    /// host-only or not); its other fields are not compared.
    ///
    /// - Parameter cookie: A cookie from this jar, or one built with the same identity.
    public func remove(_ cookie: Cookie) {
        mutate { $0.remove(name: cookie.name, domain: cookie.domain, path: cookie.path) }
    }

    /// Removes every cookie that has expired at `now`.
    ///
    /// - Parameter now: The current time.
    public func removeExpired(now: Date = Date()) {
        mutate { $0.removeExpired(now: now) }
    }

    // MARK: - Persistence

    /// Writes pending changes to the jar's file now and waits for the write.
    ///
    /// Changes are saved automatically shortly after they happen; call this when the
    /// process is about to exit, or in tests. A jar also flushes when it is
    /// deinitialized. Does nothing for an in-memory jar or when nothing changed.
    /// A failed write is reported by ``lastPersistenceError``.
    public func flush() {
        persister?.flush()
    }

    /// The error of the most recent write to the jar's file, or `nil` when it
    /// succeeded (or the jar is in memory). A failed write is retried with the next
    /// change or ``flush()``.
    public var lastPersistenceError: PersistenceError? {
        persister?.lastError
    }

    /// How many times the file was written; for tests of write coalescing.
    var persistenceWriteCount: Int {
        persister?.writeCount ?? 0
    }

    /// Applies a change and schedules a save when it touched persistent cookies.
    private func mutate(_ change: (inout CookieStore) -> Void) {
        let changed = state.withLock { store -> Bool in
            let before = store.revision
            change(&store)
            return store.revision != before
        }
        if changed { persister?.scheduleSave() }
    }
}
