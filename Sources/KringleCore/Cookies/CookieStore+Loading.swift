import Foundation

extension CookieStore {
    /// Adds cookies read from a file, each held to the rules a `Set-Cookie` header is
    /// (RFC 6265bis §5.6, §5.7), since a file is input like any other.
    ///
    /// A cookie that breaks a rule is dropped; one that expired while stored is skipped;
    /// an expiry beyond 400 days from `now` is capped (RFC 6265bis §5.5) and creation or
    /// last-access times in the future are moved back to `now`. The rest get sequence
    /// numbers in creation order, then the limits apply. Everything is counted in the report.
    ///
    /// - Parameters:
    ///   - cookies: The cookies as decoded from the file.
    ///   - now: The current time.
    /// - Returns: What became of the cookies.
    mutating func load(_ cookies: [Cookie], now: Date) -> CookieJar.LoadReport {
        noteTime(now)
        var report = CookieJar.LoadReport()
        let latestExpiry = now.addingTimeInterval(Self.maximumLifetime)
        // Times are moved back first, so that the order is one a jar could have made.
        let adjusted = cookies.map { stored -> (cookie: Cookie, wasAdjusted: Bool) in
            var cookie = stored
            if let expires = cookie.expires, expires > latestExpiry { cookie.expires = latestExpiry }
            cookie.creationTime = min(cookie.creationTime, now)
            cookie.lastAccessTime = min(cookie.lastAccessTime, now)
            return (cookie, cookie != stored)
        }
        let ordered = adjusted.enumerated().sorted {
            ($0.element.cookie.creationTime, $0.offset) < ($1.element.cookie.creationTime, $1.offset)
        }
        var stored = 0
        for (_, (cookie, wasAdjusted)) in ordered {
            if let violation = Self.violation(of: cookie, publicSuffixList: publicSuffixList) {
                report.drop(violation)
                continue
            }
            if cookie.isExpired(at: now) {
                report.expired += 1
                continue
            }
            let identity = Self.identity(of: cookie)
            let bucket = bucketKey(for: cookie.domain)
            if entry(bucket: bucket, identity: identity) != nil {
                report.drop(.duplicate)
                continue
            }
            put(cookie, bucket: bucket, identity: identity)
            enforceLimits(bucket: bucket, now: now)
            stored += 1
            if wasAdjusted { report.adjusted += 1 }
        }
        report.loaded = count
        report.evicted = stored - count
        return report
    }

    /// The first rule `cookie` breaks that every cookie made from a `Set-Cookie` header
    /// follows, or `nil`. Checked in the order the header would be: parsing (RFC 6265bis
    /// §5.6), then the storage model (§5.7).
    static func violation(
        of cookie: Cookie, publicSuffixList: PublicSuffixList
    ) -> CookieJar.LoadReport.Violation? {
        // §5.6 step 1: CTLs other than HTAB void the whole header, attributes included.
        for field in [cookie.name, cookie.value, cookie.domain, cookie.path]
        where field.utf8.contains(where: SetCookieParser.isForbiddenControl) {
            return .controlCharacter
        }
        // §5.6 steps 2-3 (RFC 6265 §5.2): the name ends at the first "=", the pair at the
        // first ";", and both are trimmed of white space.
        if cookie.name.isEmpty && cookie.value.isEmpty { return .malformedNameOrValue }
        if cookie.name.utf8.contains(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: ";") })
            || cookie.value.utf8.contains(UInt8(ascii: ";"))
            || hasSurroundingWhitespace(cookie.name) || hasSurroundingWhitespace(cookie.value)
        {
            return .malformedNameOrValue
        }
        // §5.6 steps 4 and 7. A host-only cookie's domain is the request's host, not an
        // attribute, so only a domain cookie's is bounded.
        if cookie.name.utf8.count + cookie.value.utf8.count > SetCookieParser.maxNameValueBytes { return .tooLarge }
        if !cookie.hostOnly, cookie.domain.utf8.count > SetCookieParser.maxAttributeValueBytes { return .tooLarge }
        // RFC 6265 §5.1.2: the jar keeps canonical hosts only, which hold no ";" or space.
        guard let canonical = DomainMatching.canonicalHost(cookie.domain), canonical == cookie.domain,
            !cookie.domain.utf8.contains(where: { $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: " ") })
        else { return .invalidDomain }
        if !cookie.hostOnly {
            // §5.1.3: no host domain-matches an IP address; §5.3 step 5: nor may a
            // Domain attribute name a public suffix (only that very host, host-only).
            if DomainMatching.isIPAddress(cookie.domain) { return .invalidDomain }
            if publicSuffixList.isPublicSuffix(cookie.domain) { return .publicSuffixDomain }
        }
        // RFC 6265 §5.2.4, §5.1.4: an absolute path, up to the next ";".
        guard cookie.path.hasPrefix("/"), !cookie.path.utf8.contains(UInt8(ascii: ";")) else { return .invalidPath }
        if let violation = flagViolation(
            name: cookie.name, value: cookie.value, secure: cookie.secure, hostOnly: cookie.hostOnly,
            sameSite: cookie.sameSite, hasRootPathAttribute: cookie.path == "/")
        {
            return violation
        }
        // A jar writes persistent cookies only.
        guard cookie.isPersistent else { return .sessionCookie }
        return nil
    }

    /// Whether `text` starts or ends with a space or HTAB, which parsing trims (RFC 6265 §5.2).
    private static func hasSurroundingWhitespace(_ text: String) -> Bool {
        let isWhitespace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        return text.utf8.first.map(isWhitespace) == true || text.utf8.last.map(isWhitespace) == true
    }
}
