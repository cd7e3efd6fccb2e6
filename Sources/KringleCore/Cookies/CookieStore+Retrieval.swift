import Foundation

extension CookieStore {
    /// The cookies to send to `request`, in `Cookie` header order (RFC 6265 §5.4,
    /// RFC 6265bis §5.8.3). Their last-access time becomes `now`.
    ///
    /// Only the request host's bucket is consulted, so the cost does not grow with
    /// the number of other domains in the jar.
    ///
    /// - Parameters:
    ///   - request: The request URL.
    ///   - now: The current time.
    /// - Returns: The matching cookies, longer paths first, then earlier creation.
    mutating func cookies(for request: CookieRequestURL, now: Date) -> [Cookie] {
        noteTime(now)
        let bucket = bucketKey(for: request.host)
        let (matches, expired) = Self.select(in: &buckets[bucket], for: request, now: now)
        // Expired cookies are never sent, and are evicted on sight.
        for identity in expired { remove(bucket: bucket, identity: identity) }
        return matches
    }

    /// Finds, touches and orders the matching cookies of one bucket, working on the
    /// bucket in place (no copy, no re-hashing of identities).
    ///
    /// - Returns: The matches in header order, and the identities of expired cookies.
    private static func select(
        in slot: inout [String: Entry]?, for request: CookieRequestURL, now: Date
    ) -> (matches: [Cookie], expired: [String]) {
        guard var entries = slot else { return ([], []) }
        slot = nil  // `entries` is now the only reference: mutating it copies nothing.
        defer { slot = entries }

        var matched: [Dictionary<String, Entry>.Index] = []
        var expired: [String] = []
        var index = entries.startIndex
        while index != entries.endIndex {
            let (identity, entry) = entries[index]
            let cookie = entry.cookie
            if cookie.isExpired(at: now) {
                expired.append(identity)
            } else if matches(cookie, request) {
                matched.append(index)
            }
            index = entries.index(after: index)
        }

        // §5.4 step 3: update the last-access time.
        for index in matched { entries.values[index].cookie.lastAccessTime = now }
        // §5.4 step 2: longer paths first; then earlier creation; then the sequence number.
        let ordered = matched.map { entries.values[$0] }.sorted { lhs, rhs in
            let lhsLength = lhs.cookie.path.utf8.count, rhsLength = rhs.cookie.path.utf8.count
            if lhsLength != rhsLength { return lhsLength > rhsLength }
            if lhs.cookie.creationTime != rhs.cookie.creationTime {
                return lhs.cookie.creationTime < rhs.cookie.creationTime
            }
            return lhs.sequence < rhs.sequence
        }
        return (ordered.map(\.cookie), expired)
    }

    /// §5.4 step 1: host-only cookies need the identical host, others a domain-match;
    /// the path must path-match; Secure cookies need a secure scheme.
    private static func matches(_ cookie: Cookie, _ request: CookieRequestURL) -> Bool {
        let domainMatches =
            cookie.hostOnly
            ? request.host == cookie.domain
            : DomainMatching.domainMatches(request.host, cookie.domain)
        return domainMatches
            && PathMatching.pathMatches(request.path, cookie.path)
            && (!cookie.secure || request.isSecure)
    }
}
