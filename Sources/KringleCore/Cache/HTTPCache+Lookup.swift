import Foundation

extension HTTPCache {
    /// What the cache does with one request (RFC 9111 §4).
    enum Lookup: Equatable {
        /// Answer with this stored response, without the network.
        case answer(CachedResponse)
        /// Ask the server whether `stored` is still good, with `request` (§4.3.1).
        case validate(CachedResponse, request: HTTPRequest)
        /// Ask the network as if there were no cache, and store what it answers.
        case load
        /// Nothing stored may answer, and the network may not be asked (`only-if-cached`,
        /// ``CachePolicy/cacheOnly``).
        case unavailable
    }

    /// How `request` is answered at `now` under `policy`.
    ///
    /// Only GET is looked up (a HEAD is sent and may update a stored GET, §4.3.5). A request
    /// that is conditional already (`If-None-Match`, `If-Modified-Since`, `If-Match`,
    /// `If-Unmodified-Since`, `If-Range`) or asks for a `Range` is the caller's own
    /// validation: it goes to the network, under the two policies that allow it.
    func lookup(_ request: HTTPRequest, policy: CachePolicy, now: Date) -> Lookup {
        guard request.method == .get else { return .load }
        let directives = CacheStorability.requestDirectives(request)
        let onlyIfCached = policy == .cacheOnly || directives.contains("only-if-cached")
        switch policy {
        case .reload:
            return .load
        case .returnCacheElseLoad, .cacheOnly:
            if let stored = selected(for: request) { return .answer(stored) }
            return onlyIfCached ? .unavailable : .load
        case .useProtocol:
            guard !Self.callerValidates(request) else { return onlyIfCached ? .unavailable : .load }
            guard let stored = selected(for: request) else { return onlyIfCached ? .unavailable : .load }
            if Self.mayAnswer(request, directives: directives, with: stored, at: now) { return .answer(stored) }
            // §5.2.1.7: only-if-cached takes what is stored or nothing; it never validates.
            return onlyIfCached ? .unavailable : .validate(stored, request: stored.conditionalRequest(for: request))
        }
    }

    /// Whether `stored` may answer `request` without validation (§4.2, §5.2).
    static func mayAnswer(
        _ request: HTTPRequest, directives: CacheControl, with stored: CachedResponse, at now: Date
    ) -> Bool {
        let responseDirectives = stored.cacheControl
        // §5.2.1.4 and §5.2.2.4: no-cache, of the request or the response, always validates
        // (a qualified `no-cache="field"` is taken as unqualified, as §5.2.2.4 allows).
        guard !directives.contains("no-cache"), !responseDirectives.contains("no-cache") else { return false }
        let age = stored.currentAge(at: now)
        let lifetime = stored.freshnessLifetime
        // §5.2.1.1 max-age: no older than this, fresh or not.
        if let maxAge = directives.seconds("max-age"), age > TimeInterval(maxAge) { return false }
        // §5.2.1.3 min-fresh: fresh for at least this much longer.
        if let minFresh = directives.seconds("min-fresh"), lifetime - age < TimeInterval(minFresh) { return false }
        if lifetime > age { return true }
        // Stale (§4.2.4): only with the request's max-stale, and never against must-revalidate
        // (§5.2.2.2).
        guard directives.contains("max-stale"), !responseDirectives.contains("must-revalidate") else { return false }
        guard directives.argument("max-stale") != nil, let maxStale = directives.seconds("max-stale") else {
            return true  // max-stale without a value: any staleness
        }
        return age - lifetime <= TimeInterval(maxStale)
    }

    /// Whether a stale `stored` may answer `request` because revalidating it failed with a
    /// server error or no answer at all (RFC 5861 §4 `stale-if-error`, in the response or
    /// the request, the request's taking precedence), which `must-revalidate` and `no-cache`
    /// forbid (RFC 9111 §4.2.4).
    static func mayServeStale(_ stored: CachedResponse, onErrorFor request: HTTPRequest, at now: Date) -> Bool {
        let responseDirectives = stored.cacheControl
        guard !responseDirectives.contains("must-revalidate"), !responseDirectives.contains("no-cache") else {
            return false
        }
        // The request's own limit, where it sets one, is the caller's word on how stale it
        // will take (RFC 5861 §4 defines it for both).
        let requestDirectives = CacheStorability.requestDirectives(request)
        guard let allowed = requestDirectives.seconds("stale-if-error") ?? responseDirectives.seconds("stale-if-error")
        else { return false }
        let staleness = stored.currentAge(at: now) - stored.freshnessLifetime
        return staleness <= TimeInterval(allowed)
    }

    /// The statuses RFC 5861 §4 counts as errors for `stale-if-error`.
    static let errorStatuses: Set<Int> = [500, 502, 503, 504]

    /// Whether the caller made the request conditional or partial itself.
    private static func callerValidates(_ request: HTTPRequest) -> Bool {
        ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"].contains {
            request.headers[$0] != nil
        }
    }
}
