import Foundation

// RFC 9111 §4.2: how long a stored response stays fresh, and how old it is.

extension CachedResponse {
    /// The response's `Cache-Control` directives.
    var cacheControl: CacheControl { CacheControl(headers) }

    /// freshness_lifetime (RFC 9111 §4.2.1), in seconds: `max-age`, else `Expires` minus
    /// `Date`, else a heuristic where §4.2.2 allows one, else 0. (`s-maxage` is for shared
    /// caches, and this one is private.)
    var freshnessLifetime: TimeInterval {
        let directives = cacheControl
        if let maxAge = directives.seconds("max-age") { return TimeInterval(maxAge) }
        if let expires = headers["Expires"] {
            // An invalid date, "0" included, means already expired (§5.3).
            guard let expiry = HTTPDate.parse(expires) else { return 0 }
            return max(0, expiry.timeIntervalSince(dateValue))
        }
        return heuristicFreshnessLifetime(directives) ?? 0
    }

    /// §4.2.2: with no explicit expiration time, a heuristically cacheable status (or
    /// `public`) may be given a lifetime of its own; ours is the usual 10% of the time since
    /// `Last-Modified`, at most a day.
    private func heuristicFreshnessLifetime(_ directives: CacheControl) -> TimeInterval? {
        guard CacheStorability.heuristicallyCacheableStatuses.contains(statusCode) || directives.contains("public"),
            let lastModified = headers["Last-Modified"].flatMap(HTTPDate.parse)
        else { return nil }
        let sinceModified = dateValue.timeIntervalSince(lastModified)
        guard sinceModified > 0 else { return nil }
        return min(sinceModified / 10, Self.heuristicLifetimeCap)
    }

    /// The longest heuristic freshness lifetime given: 24 hours.
    static let heuristicLifetimeCap: TimeInterval = 24 * 60 * 60

    /// date_value: the response's `Date`, or when it arrived if it had none or an invalid one
    /// (RFC 9110 §6.6.1: a recipient with a clock adds one on receipt).
    var dateValue: Date {
        headers["Date"].flatMap(HTTPDate.parse) ?? responseDate
    }

    /// current_age (RFC 9111 §4.2.3) at `now`, in seconds.
    func currentAge(at now: Date) -> TimeInterval {
        let ageValue = headers["Age"].map { CacheControl.deltaSeconds($0) } ?? 0
        let apparentAge = max(0, responseDate.timeIntervalSince(dateValue))
        let responseDelay = max(0, responseDate.timeIntervalSince(requestDate))
        let correctedAgeValue = TimeInterval(ageValue) + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now.timeIntervalSince(responseDate))
        return correctedInitialAge + residentTime
    }

    /// The same response dated as if it had arrived in the distant past, so it is stale
    /// whatever its lifetime and never served stale on error: how the cache marks a response
    /// it learnt is outdated, but may still revalidate (§4.3.5).
    func markedStale() -> CachedResponse {
        var stale = self
        stale.requestDate = .distantPast
        stale.responseDate = .distantPast
        return stale
    }

    /// Whether the response is fresh at `now` (§4.2: freshness_lifetime > current_age).
    func isFresh(at now: Date) -> Bool {
        freshnessLifetime > currentAge(at: now)
    }
}

extension CacheControl {
    /// A delta-seconds field value such as `Age` (RFC 9111 §1.2.2): digits, capped at 2^31;
    /// anything else counts as 0.
    static func deltaSeconds(_ text: String) -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return 0 }
        return Int(trimmed).map { min($0, largestDeltaSeconds) } ?? largestDeltaSeconds
    }
}
