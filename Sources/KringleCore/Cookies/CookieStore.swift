import Foundation

/// The jar's state without any locking, in the shape of Go's `net/http/cookiejar`:
/// entries keyed by registrable domain (the bucket), then by cookie identity
/// (`domain;path;name`), each with a sequence number that makes ordering
/// deterministic when creation times tie.
///
/// ``CookieJar`` owns one inside a `Mutex`; every algorithm that needs the time takes
/// `now` as a parameter.
struct CookieStore: Sendable {
    /// A stored cookie and its insertion sequence number.
    struct Entry: Sendable {
        var cookie: Cookie
        /// Assigned on first insertion and kept when the cookie is replaced, so that it
        /// breaks creation-time ties exactly as the creation time would (§5.4 step 2).
        let sequence: UInt64
    }

    /// RFC 6265bis §5.5 / §5.6.1: no cookie lives longer than 400 days from when it was set.
    static let maximumLifetime: TimeInterval = 400 * 86_400

    /// The eviction thresholds (RFC 6265 §6.1).
    let limits: CookieJar.Limits
    /// The list used to reject public-suffix domains and to pick buckets. Read when first
    /// needed, not when the store is made: parsing its rules costs more than everything else
    /// a new client does, and every `NetworkClient()` makes a jar, which a client whose
    /// server sets no cookie never needs it for.
    var publicSuffixList: PublicSuffixList { .shared }

    /// Bucket key (registrable domain, or the host itself) → identity → entry.
    /// Mutated only by `CookieStore` and its extensions, which keep ``count`` in step.
    var buckets: [String: [String: Entry]] = [:]
    /// The number of stored cookies, across buckets.
    private(set) var count = 0
    /// Bumped whenever the set of persistent cookies changes; a persistent jar writes
    /// its file when this differs from the revision it last wrote.
    private(set) var revision: UInt64 = 0
    /// The `now` of the most recent operation; cookies expired by then are not written.
    private(set) var latestNow: Date = .distantPast
    private var nextSequence: UInt64 = 0

    init(limits: CookieJar.Limits) {
        self.limits = limits
    }

    // MARK: - Keys

    /// The identity of a cookie, `domain;path;name`. RFC 6265bis §5.7 also
    /// counts the host-only-flag, so a domain cookie's domain is written with a
    /// leading dot (the classic notation), a host-only cookie's without. No part can
    /// hold a `;`, so the key is unambiguous.
    static func identity(of cookie: Cookie) -> String {
        (cookie.hostOnly ? "" : ".") + cookie.domain + ";" + cookie.path + ";" + cookie.name
    }

    /// The bucket of a host or cookie domain: its registrable domain (eTLD+1), or the
    /// name itself for IP addresses, public suffixes and single-label hosts.
    /// A host only ever needs the bucket of its own registrable domain, because every
    /// cookie domain it can domain-match lies within it.
    func bucketKey(for domain: String) -> String {
        if DomainMatching.isIPAddress(domain) { return domain }
        return publicSuffixList.registrableDomain(of: domain) ?? domain
    }

    // MARK: - Mutation primitives

    /// Records the time of an operation (see ``latestNow``).
    mutating func noteTime(_ now: Date) {
        latestNow = now
    }

    /// The stored entry with the given identity, if any.
    func entry(bucket: String, identity: String) -> Entry? {
        buckets[bucket]?[identity]
    }

    /// Inserts or replaces a cookie. A replacement keeps the old sequence number; the
    /// caller has already carried over the creation time.
    mutating func put(_ cookie: Cookie, bucket: String, identity: String) {
        let old = buckets[bucket]?[identity]
        if old == nil {
            count += 1
            nextSequence += 1
        }
        let entry = Entry(cookie: cookie, sequence: old?.sequence ?? nextSequence)
        buckets[bucket, default: [:]][identity] = entry
        if cookie.isPersistent || old?.cookie.isPersistent == true { revision += 1 }
    }

    /// Removes one cookie; returns whether it was there.
    @discardableResult
    mutating func remove(bucket: String, identity: String) -> Bool {
        guard let removed = buckets[bucket]?.removeValue(forKey: identity) else { return false }
        count -= 1
        if buckets[bucket]?.isEmpty == true { buckets[bucket] = nil }
        if removed.cookie.isPersistent { revision += 1 }
        return true
    }

    /// Sets the last-access time of a stored cookie (RFC 6265 §5.4 step 3). Not a
    /// change worth a write of its own; it is saved with the next one.
    mutating func touch(bucket: String, identity: String, now: Date) {
        buckets[bucket]?[identity]?.cookie.lastAccessTime = now
    }

    // MARK: - Whole-store operations

    /// Every stored cookie, oldest insertion first (expired ones included until evicted).
    var allCookies: [Cookie] {
        buckets.values.flatMap(\.values).sorted { $0.sequence < $1.sequence }.map(\.cookie)
    }

    /// The cookies a persistent jar writes: persistent ones not expired at ``latestNow``.
    var persistentCookies: [Cookie] {
        allCookies.filter { $0.isPersistent && !$0.isExpired(at: latestNow) }
    }

    /// Removes everything.
    mutating func removeAll() {
        guard count > 0 else { return }
        buckets = [:]
        count = 0
        revision += 1
    }

    /// Removes the cookies with this name, domain and path (host-only or not).
    ///
    /// - Returns: Whether anything was removed.
    @discardableResult
    mutating func remove(name: String, domain: String, path: String) -> Bool {
        let bucket = bucketKey(for: domain)
        var removed = false
        for hostOnly in [true, false] {
            let probe = Cookie(
                name: name, value: "", domain: domain, path: path, hostOnly: hostOnly,
                creationTime: .distantPast)
            removed = remove(bucket: bucket, identity: Self.identity(of: probe)) || removed
        }
        return removed
    }

    /// Evicts every cookie expired at `now` (RFC 6265 §5.3: expired cookies MUST be
    /// evicted); returns how many were removed.
    @discardableResult
    mutating func removeExpired(now: Date) -> Int {
        noteTime(now)
        var expired: [(bucket: String, identity: String)] = []
        for (bucket, entries) in buckets {
            for (identity, entry) in entries where entry.cookie.isExpired(at: now) {
                expired.append((bucket, identity))
            }
        }
        for item in expired { remove(bucket: item.bucket, identity: item.identity) }
        return expired.count
    }
}
