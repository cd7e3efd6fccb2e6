extension Cookie {
    /// The `SameSite` attribute of a cookie (RFC 6265bis §5.6.7, "same-site-flag").
    public enum SameSite: String, Sendable, Hashable, Codable, CaseIterable {
        /// `SameSite=Strict`.
        case strict
        /// `SameSite=Lax`.
        case lax
        /// `SameSite=None`; RFC 6265bis only accepts it together with `Secure`.
        case none
        /// No `SameSite` attribute, or one with an unknown value (6265bis "Default").
        case unspecified

        /// Parses an attribute value case-insensitively; unknown values give
        /// ``unspecified`` (RFC 6265bis §5.6.7).
        ///
        /// - Parameter attributeValue: The text after `SameSite=`.
        init(attributeValue: some StringProtocol) {
            switch attributeValue.lowercased() {
            case "strict": self = .strict
            case "lax": self = .lax
            case "none": self = .none
            default: self = .unspecified
            }
        }
    }
}
