import Foundation

extension CookieStore {
    /// Removes excess cookies after an insertion into `bucket` (RFC 6265 §5.3 end,
    /// RFC 6265bis §5.7): first a bucket over ``CookieJar/Limits/cookiesPerDomain``,
    /// then a store over ``CookieJar/Limits/totalCookies``.
    ///
    /// Priority order: expired cookies; then, within an over-full domain, non-Secure
    /// cookies before Secure ones; then all cookies. Within a priority the earliest
    /// last-access time goes first (ties: lower sequence number).
    mutating func enforceLimits(bucket: String, now: Date) {
        if let entries = buckets[bucket], entries.count > limits.cookiesPerDomain {
            evictExpired(in: [bucket], now: now)
            let remaining = buckets[bucket] ?? [:]
            let excess = remaining.count - limits.cookiesPerDomain
            if excess > 0 {
                let victims =
                    remaining
                    .sorted { lhs, rhs in
                        if lhs.value.cookie.secure != rhs.value.cookie.secure { return !lhs.value.cookie.secure }
                        return Self.accessedEarlier(lhs.value, rhs.value)
                    }
                    .prefix(excess)
                for victim in victims { remove(bucket: bucket, identity: victim.key) }
            }
        }
        if count > limits.totalCookies {
            evictExpired(in: Array(buckets.keys), now: now)
            let excess = count - limits.totalCookies
            guard excess > 0 else { return }
            var candidates: [(bucket: String, identity: String, entry: Entry)] = []
            candidates.reserveCapacity(count)
            for (bucketKey, entries) in buckets {
                for (identity, entry) in entries { candidates.append((bucketKey, identity, entry)) }
            }
            let victims: [(bucket: String, identity: String, entry: Entry)]
            if excess == 1, let oldest = candidates.min(by: { Self.accessedEarlier($0.entry, $1.entry) }) {
                victims = [oldest]
            } else {
                victims = Array(candidates.sorted { Self.accessedEarlier($0.entry, $1.entry) }.prefix(excess))
            }
            for victim in victims { remove(bucket: victim.bucket, identity: victim.identity) }
        }
    }

    /// Removes the expired cookies of the given buckets.
    private mutating func evictExpired(in bucketKeys: [String], now: Date) {
        for bucketKey in bucketKeys {
            guard let entries = buckets[bucketKey] else { continue }
            for (identity, entry) in entries where entry.cookie.isExpired(at: now) {
                remove(bucket: bucketKey, identity: identity)
            }
        }
    }

    /// LRU order: earlier last-access first, then lower sequence number.
    private static func accessedEarlier(_ lhs: Entry, _ rhs: Entry) -> Bool {
        if lhs.cookie.lastAccessTime != rhs.cookie.lastAccessTime {
            return lhs.cookie.lastAccessTime < rhs.cookie.lastAccessTime
        }
        return lhs.sequence < rhs.sequence
    }
}
