/// Host canonicalization and domain matching (RFC 6265 §5.1.2 and §5.1.3).
enum DomainMatching {
    /// The canonicalized host name of RFC 6265 §5.1.2: lowercased, Unicode labels
    /// converted to punycode, a trailing dot (fully qualified name) removed, and
    /// IPv6 brackets removed.
    ///
    /// - Parameter host: A host as found in a URL.
    /// - Returns: The canonical host, or `nil` for an empty or unencodable host.
    static func canonicalHost(_ host: some StringProtocol) -> String? {
        var host = Substring(host)
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        if host.hasSuffix(".") { host = host.dropLast() }
        guard !host.isEmpty, let ascii = Punycode.toASCII(host: host) else { return nil }
        return ascii
    }

    /// Whether a canonical host is an IP address literal rather than a host name.
    /// IPv6 addresses are recognized by their colon, which no host name has; IPv4
    /// addresses are four dot-separated decimal numbers of at most 255.
    ///
    /// - Parameter host: A canonical host (see ``canonicalHost(_:)``).
    /// - Returns: `true` for `192.0.2.1`, `::1` or `fe80::1%en0`.
    static func isIPAddress(_ host: some StringProtocol) -> Bool {
        let bytes = host.utf8
        if bytes.contains(UInt8(ascii: ":")) { return true }
        // Four dot-separated decimal parts, each 1-3 digits and at most 255.
        var dots = 0, digits = 0, value = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard digits > 0 else { return false }
                dots += 1
                digits = 0
                value = 0
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                digits += 1
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                guard digits <= 3, value <= 255 else { return false }
            } else {
                return false
            }
        }
        return dots == 3 && digits > 0
    }

    /// The domain-match relation of RFC 6265 §5.1.3: the strings are identical, or
    /// `domain` is a suffix of `host`, the character before it in `host` is a dot,
    /// and `host` is a host name (never an IP address).
    ///
    /// - Parameters:
    ///   - host: A canonical host.
    ///   - domain: A canonical cookie domain, without a leading dot.
    /// - Returns: Whether `host` domain-matches `domain`.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        let hostBytes = host.utf8, domainBytes = domain.utf8
        guard hostBytes.count > domainBytes.count, !domainBytes.isEmpty else { return false }
        guard hostBytes.reversed().starts(with: domainBytes.reversed()) else { return false }
        let dot = hostBytes.index(hostBytes.endIndex, offsetBy: -(domainBytes.count + 1))
        return hostBytes[dot] == UInt8(ascii: ".") && !isIPAddress(host)
    }
}
