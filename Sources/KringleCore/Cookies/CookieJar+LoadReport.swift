extension CookieJar {
    /// What a persistent jar made of the cookies in its file when it was created.
    ///
    /// Each stored cookie goes through the checks a `Set-Cookie` header gets (RFC 6265bis
    /// §5.6 and §5.7): a file the jar wrote itself passes them all, so a cookie that fails
    /// one was put there by something else, such as a hand-edited or planted file. It is
    /// dropped and counted under the rule it broke, and it is gone from the file after the
    /// jar's next write. Nothing is dropped without being counted here.
    ///
    /// ```swift
    /// let jar = try CookieJar(fileURL: cookieFile)
    /// if jar.loadReport.droppedCount > 0 {
    ///     print("Ignored cookies in \(cookieFile.path): \(jar.loadReport)")
    /// }
    /// ```
    public struct LoadReport: Sendable, Hashable, CustomStringConvertible {
        /// A rule a stored cookie broke, so that no `Set-Cookie` header could have made it.
        public enum Violation: Sendable, Hashable, CaseIterable, CustomStringConvertible {
            /// A control character other than HTAB in the name, value, domain or path
            /// (RFC 6265bis §5.6 step 1).
            case controlCharacter
            /// Both name and value empty, a `=` in the name, a `;` in either, or white space
            /// around either (RFC 6265bis §5.6 steps 1-3, RFC 6265 §5.2).
            case malformedNameOrValue
            /// Name and value longer than 4096 bytes together, or a domain cookie's domain
            /// longer than 1024 (RFC 6265bis §5.6 steps 4 and 7).
            case tooLarge
            /// A domain that is empty or not canonical (RFC 6265 §5.1.2), or a domain cookie
            /// (not host-only) for an IP address, which no host domain-matches (§5.1.3).
            case invalidDomain
            /// A domain cookie (not host-only) for a public suffix such as `com` or `co.uk`
            /// (RFC 6265 §5.3 step 5): it would be sent to every site under it.
            case publicSuffixDomain
            /// A path that does not start with `/`, or holds a `;` (RFC 6265 §5.2.4).
            case invalidPath
            /// A `__Secure-` cookie without `Secure`, a `__Host-` cookie that is not Secure,
            /// host-only and for path `/`, or a nameless cookie whose value starts with either
            /// prefix (RFC 6265bis §4.1.3, §5.7).
            case prefixViolation
            /// `SameSite=None` without `Secure` (RFC 6265bis §5.7).
            case sameSiteNoneWithoutSecure
            /// A session cookie (no expiry), which a jar never writes.
            case sessionCookie
            /// The same name, domain, path and host-only flag as a cookie earlier in the file
            /// (by creation time); the earlier one is kept.
            case duplicate

            /// The rule in a few words, such as `public-suffix domain`.
            public var description: String {
                switch self {
                case .controlCharacter: return "control character"
                case .malformedNameOrValue: return "malformed name or value"
                case .tooLarge: return "too large"
                case .invalidDomain: return "invalid domain"
                case .publicSuffixDomain: return "public-suffix domain"
                case .invalidPath: return "invalid path"
                case .prefixViolation: return "__Secure-/__Host- prefix rules broken"
                case .sameSiteNoneWithoutSecure: return "SameSite=None without Secure"
                case .sessionCookie: return "session cookie"
                case .duplicate: return "duplicate"
                }
            }
        }

        /// How many cookies the jar holds after loading.
        public var loaded: Int
        /// How many had expired while stored; not a sign of tampering.
        public var expired: Int
        /// How many were kept with a time moved to what a `Set-Cookie` could give: an expiry
        /// more than 400 days ahead shortened to 400 days (RFC 6265bis §5.5), or a creation
        /// or last-access time in the future moved back to the time of loading.
        public var adjusted: Int
        /// How many were dropped by the jar's ``Limits`` (the file held more cookies than
        /// they allow); the least recently used go first, as for any store.
        public var evicted: Int
        /// How many were dropped for breaking a rule, by rule; rules no cookie broke are
        /// absent.
        public var dropped: [Violation: Int]

        /// Creates a report; all counts zero by default.
        public init(
            loaded: Int = 0, expired: Int = 0, adjusted: Int = 0, evicted: Int = 0, dropped: [Violation: Int] = [:]
        ) {
            self.loaded = loaded
            self.expired = expired
            self.adjusted = adjusted
            self.evicted = evicted
            self.dropped = dropped
        }

        /// How many cookies were dropped for breaking a rule, all rules together.
        public var droppedCount: Int {
            dropped.values.reduce(0, +)
        }

        /// The counts on one line, such as
        /// `loaded 12, expired 1, adjusted 0, evicted 0, dropped 2 (public-suffix domain: 2)`.
        public var description: String {
            var text = "loaded \(loaded), expired \(expired), adjusted \(adjusted), evicted \(evicted), "
            text += "dropped \(droppedCount)"
            let reasons = Violation.allCases.compactMap { violation in
                dropped[violation].map { "\(violation): \($0)" }
            }
            if !reasons.isEmpty { text += " (" + reasons.joined(separator: ", ") + ")" }
            return text
        }

        /// Counts one cookie dropped for `violation`.
        mutating func drop(_ violation: Violation) {
            dropped[violation, default: 0] += 1
        }
    }
}
