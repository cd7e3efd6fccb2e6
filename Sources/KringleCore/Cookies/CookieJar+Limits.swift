extension CookieJar {
    /// How many cookies a jar keeps before it evicts (RFC 6265 §6.1 minimums, which
    /// browsers also use as their limits).
    ///
    /// When a domain holds more than ``cookiesPerDomain`` cookies, or the jar more than
    /// ``totalCookies``, the jar evicts expired cookies first, then the least recently
    /// accessed ones (non-Secure before Secure within a domain).
    public struct Limits: Sendable, Hashable {
        /// The most cookies kept per registrable domain (eTLD+1). Default 50.
        public var cookiesPerDomain: Int
        /// The most cookies kept in all. Default 3,000.
        public var totalCookies: Int

        /// Creates limits.
        ///
        /// - Parameters:
        ///   - cookiesPerDomain: The most cookies per registrable domain; at least 1.
        ///   - totalCookies: The most cookies in all; at least 1.
        public init(cookiesPerDomain: Int = 50, totalCookies: Int = 3_000) {
            self.cookiesPerDomain = max(1, cookiesPerDomain)
            self.totalCookies = max(1, totalCookies)
        }

        /// 50 cookies per domain, 3,000 in all (RFC 6265 §6.1).
        public static let `default` = Limits()
    }
}
