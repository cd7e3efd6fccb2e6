import Foundation

extension CookieStore {
    /// Applies the storage model of RFC 6265 §5.3, as updated by RFC 6265bis §5.7, to
    /// one parsed `Set-Cookie` header received in a response from `request`.
    ///
    /// - Parameters:
    ///   - parsed: The parsed header.
    ///   - request: The URL the response came from.
    ///   - now: The current time; it becomes the creation and last-access time.
    /// - Returns: Whether the store changed (a cookie was added, replaced or deleted).
    @discardableResult
    mutating func store(_ parsed: ParsedSetCookie, from request: CookieRequestURL, now: Date) -> Bool {
        noteTime(now)
        guard let cookie = makeCookie(parsed, from: request, now: now) else { return false }
        let bucket = bucketKey(for: cookie.domain)

        // RFC 6265bis §5.7: a cookie from an insecure origin may not overlay a
        // Secure cookie of the same name whose domain and path it covers.
        if !cookie.secure, !request.isSecure,
            shadowsSecureCookie(cookie, bucket: bucket, now: now)
        {
            return false
        }

        var replacement = cookie
        let identity = Self.identity(of: cookie)
        let old = entry(bucket: bucket, identity: identity)
        // RFC 6265 §5.3 step 11.3: a replacement keeps the old creation time.
        if let old { replacement.creationTime = old.cookie.creationTime }

        // A cookie that is already expired only deletes the one it replaces
        // (RFC 6265 §5.3: expired cookies are evicted at once).
        if replacement.isExpired(at: now) {
            return remove(bucket: bucket, identity: identity)
        }
        put(replacement, bucket: bucket, identity: identity)
        enforceLimits(bucket: bucket, now: now)
        return true
    }

    /// Builds the cookie of RFC 6265 §5.3 steps 2-10 (6265bis §5.7), or
    /// `nil` when the cookie must be ignored.
    private func makeCookie(_ parsed: ParsedSetCookie, from request: CookieRequestURL, now: Date) -> Cookie? {
        guard let (domain, hostOnly) = cookieDomain(parsed.domain, request: request) else { return nil }

        // §5.3 step 7 (§5.2.4): a missing or invalid Path means the default-path (§5.1.4).
        let path: String
        if let attribute = parsed.path, !attribute.isEmpty {
            path = attribute
        } else {
            path = PathMatching.defaultPath(request.path)
        }

        // §5.3 step 8; RFC 6265bis §5.7: Secure cookies only from secure origins.
        if parsed.secure, !request.isSecure { return nil }
        let flags = Self.flagViolation(
            name: parsed.name, value: parsed.value, secure: parsed.secure, hostOnly: hostOnly,
            sameSite: parsed.sameSite, hasRootPathAttribute: parsed.path != nil && path == "/")
        if flags != nil { return nil }

        return Cookie(
            name: parsed.name,
            value: parsed.value,
            domain: domain,
            path: path,
            expires: expiry(of: parsed, now: now),
            secure: parsed.secure,
            httpOnly: parsed.httpOnly,  // §5.3 step 10: stored; we are an HTTP API.
            hostOnly: hostOnly,
            sameSite: parsed.sameSite,
            creationTime: now,
            lastAccessTime: now
        )
    }

    /// §5.3 step 3: `Max-Age` beats `Expires`; `Max-Age` ≤ 0 means the earliest
    /// representable time; RFC 6265bis caps the lifetime at 400 days.
    private func expiry(of parsed: ParsedSetCookie, now: Date) -> Date? {
        let latest = now.addingTimeInterval(Self.maximumLifetime)
        if let maxAge = parsed.maxAge {
            guard maxAge > 0 else { return .distantPast }
            return min(now.addingTimeInterval(TimeInterval(maxAge)), latest)
        }
        return parsed.expires.map { min($0, latest) }
    }

    /// §5.3 steps 4-6 with RFC 6265bis §5.7: the cookie's domain and its
    /// host-only-flag, or `nil` when the `Domain` attribute must reject the cookie.
    private func cookieDomain(_ attribute: String?, request: CookieRequestURL) -> (String, Bool)? {
        var domain = attribute ?? ""
        guard !domain.isEmpty else { return (request.host, true) }  // 6265bis: empty → host-only
        // RFC 6265bis §5.7: non-ASCII Domain attributes are ignored with the cookie.
        guard domain.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        if domain.hasPrefix("["), domain.hasSuffix("]") { domain = String(domain.dropFirst().dropLast()) }

        // IP addresses never domain-match (§5.1.3): only the request's own address is
        // accepted, and the cookie stays host-only.
        if request.hostIsIPAddress || DomainMatching.isIPAddress(domain) {
            return domain == request.host ? (request.host, true) : nil
        }
        // §5.3 step 5: a public suffix is only accepted from that very host, host-only.
        if publicSuffixList.isPublicSuffix(domain) {
            return domain == request.host ? (request.host, true) : nil
        }
        // §5.3 step 6: the request host must domain-match the Domain attribute.
        guard DomainMatching.domainMatches(request.host, domain) else { return nil }
        return (domain, false)
    }

    /// RFC 6265bis §5.7: is there a live Secure cookie with the same name,
    /// whose domain domain-matches the new one's (or vice versa) and whose path the
    /// new cookie's path path-matches?
    private func shadowsSecureCookie(_ cookie: Cookie, bucket: String, now: Date) -> Bool {
        guard let entries = buckets[bucket] else { return false }
        return entries.values.contains { entry in
            let existing = entry.cookie
            return existing.secure && existing.name == cookie.name && !existing.isExpired(at: now)
                && (DomainMatching.domainMatches(existing.domain, cookie.domain)
                    || DomainMatching.domainMatches(cookie.domain, existing.domain))
                && PathMatching.pathMatches(cookie.path, existing.path)
        }
    }

    /// The RFC 6265bis §5.7 rules on a cookie's name and flags, which a cookie loaded from
    /// a file must follow as much as one from a `Set-Cookie` header.
    ///
    /// - Parameter hasRootPathAttribute: whether the cookie's path is `/` from a `Path`
    ///   attribute, as `__Host-` requires; a stored cookie's path of `/` counts as one.
    /// - Returns: the rule the cookie breaks, or `nil`.
    static func flagViolation(
        name: String, value: String, secure: Bool, hostOnly: Bool, sameSite: Cookie.SameSite,
        hasRootPathAttribute: Bool
    ) -> CookieJar.LoadReport.Violation? {
        // A nameless cookie may not pose as a prefixed one.
        if name.isEmpty, hasPrefix(value, "__secure-") || hasPrefix(value, "__host-") { return .prefixViolation }
        // SameSite=None requires Secure.
        if sameSite == .none, !secure { return .sameSiteNoneWithoutSecure }
        // Cookie prefixes (§4.1.3), matched case-insensitively.
        if hasPrefix(name, "__secure-"), !secure { return .prefixViolation }
        if hasPrefix(name, "__host-"), !(secure && hostOnly && hasRootPathAttribute) { return .prefixViolation }
        return nil
    }

    /// ASCII case-insensitive prefix test; `prefix` must be lowercase.
    static func hasPrefix(_ text: String, _ prefix: String) -> Bool {
        let bytes = text.utf8
        guard bytes.count >= prefix.utf8.count else { return false }
        return zip(bytes, prefix.utf8).allSatisfy { byte, expected in
            let lowered = (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
            return lowered == expected
        }
    }
}
