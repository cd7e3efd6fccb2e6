import Foundation

/// The `Set-Cookie` parsing algorithm of RFC 6265 §5.2, with the RFC 6265bis
/// updates (§5.6): nameless cookies, control characters and size limits.
///
/// Parsing never fails loudly: a header that cannot hold a cookie gives `nil`, and an
/// attribute that cannot be read is skipped while the cookie is kept.
enum SetCookieParser {
    /// RFC 6265bis §5.6 step 4: name plus value may not exceed 4096 bytes.
    static let maxNameValueBytes = 4096
    /// RFC 6265bis §5.6 step 7: longer attribute values are ignored.
    static let maxAttributeValueBytes = 1024

    private static let semicolon = UInt8(ascii: ";")
    private static let equals = UInt8(ascii: "=")

    /// Parses one `Set-Cookie` header value.
    ///
    /// - Parameter header: The field value, without `Set-Cookie:`.
    /// - Returns: The parsed cookie, or `nil` when the header is to be ignored: it holds
    ///   a control character other than HTAB, both name and value are empty, or name
    ///   and value together exceed ``maxNameValueBytes``.
    static func parse(_ header: String) -> ParsedSetCookie? {
        let bytes = header.utf8
        // RFC 6265bis §5.6 step 1: CTLs other than HTAB make the whole header invalid.
        guard !bytes.contains(where: isForbiddenControl) else { return nil }

        // RFC 6265 §5.2 step 1: the name-value-pair runs up to the first ";".
        let firstSemicolon = bytes.firstIndex(of: semicolon) ?? bytes.endIndex
        let pair = header[..<firstSemicolon]

        // RFC 6265bis §5.6 step 2: without "=", the name is empty and the pair is the value.
        let name: Substring, value: Substring
        if let equalsSign = pair.utf8.firstIndex(of: equals) {
            name = trimmed(pair[..<equalsSign])
            value = trimmed(pair[pair.utf8.index(after: equalsSign)...])
        } else {
            name = ""
            value = trimmed(pair)
        }
        // RFC 6265bis §5.6 steps 3-4.
        if name.isEmpty && value.isEmpty { return nil }
        if name.utf8.count + value.utf8.count > maxNameValueBytes { return nil }

        var cookie = ParsedSetCookie(name: String(name), value: String(value))
        var rest = header[firstSemicolon...]
        while !rest.isEmpty {
            rest = rest.dropFirst()  // the ";" that starts this cookie-av
            let end = rest.utf8.firstIndex(of: semicolon) ?? rest.endIndex
            apply(attribute: rest[..<end], to: &cookie)
            rest = rest[end...]
        }
        return cookie
    }

    /// RFC 6265 §5.2 step 3 (sub-steps 2-6) and §5.2.1-§5.2.6, RFC 6265bis §5.6.7.
    private static func apply(attribute av: Substring, to cookie: inout ParsedSetCookie) {
        let name: Substring, value: Substring
        if let equalsSign = av.utf8.firstIndex(of: equals) {
            name = trimmed(av[..<equalsSign])
            value = trimmed(av[av.utf8.index(after: equalsSign)...])
        } else {
            name = trimmed(av)
            value = ""
        }
        // RFC 6265bis §5.6 step 7: an over-long attribute value voids the attribute only.
        guard value.utf8.count <= maxAttributeValueBytes else { return }

        switch name.lowercased() {
        case "expires":
            // §5.2.1: an unparsable date means the attribute is ignored.
            if let date = CookieDateParser.parse(value) { cookie.expires = date }
        case "max-age":
            if let seconds = parseMaxAge(value) { cookie.maxAge = seconds }
        case "domain":
            // §5.2.3: drop one leading dot, lowercase. 6265bis keeps an empty value. The RFC
            // means the byte: `hasPrefix(".")` compares Characters, and a dot followed by a
            // combining mark is a Character that is no dot.
            let domain = value.utf8.first == UInt8(ascii: ".") ? Substring(value.utf8.dropFirst()) : value
            cookie.domain = domain.lowercased()
        case "path":
            // §5.2.4: an empty or relative path means the default-path (again by byte).
            cookie.path = value.utf8.first == UInt8(ascii: "/") ? String(value) : ""
        case "secure":
            cookie.secure = true
        case "httponly":
            cookie.httpOnly = true
        case "samesite":
            cookie.sameSite = Cookie.SameSite(attributeValue: value)
        default:
            break  // Unknown attributes (Version, Comment, Priority, …) are ignored.
        }
    }

    /// RFC 6265 §5.2.2: an optional "-" then digits only; anything else is ignored.
    /// Values beyond `Int64` saturate.
    static func parseMaxAge(_ value: some StringProtocol) -> Int64? {
        var digits = Substring(value).utf8[...]
        let isNegative = digits.first == UInt8(ascii: "-")
        if isNegative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var seconds: Int64 = 0
        for digit in digits {
            let (shifted, overflow1) = seconds.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int64(digit - 0x30))
            if overflow1 || overflow2 { seconds = .max; break }
            seconds = sum
        }
        return isNegative ? -seconds : seconds
    }

    /// `%x00-08 / %x0A-1F / %x7F`: the control characters RFC 6265bis forbids.
    static func isForbiddenControl(_ byte: UInt8) -> Bool {
        (byte <= 0x1F && byte != 0x09) || byte == 0x7F
    }

    /// Removes leading and trailing WSP (space and HTAB), as RFC 6265 §5.2 requires.
    private static func trimmed(_ text: Substring) -> Substring {
        let utf8 = text.utf8
        guard let first = utf8.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
            let last = utf8.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })
        else { return "" }
        return text[first..<utf8.index(after: last)]
    }
}
