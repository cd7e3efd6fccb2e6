import Foundation

@_spi(KringleInternals) @testable import KringleCore
@testable import KringleTesting

/// `SetCookieParser.parse` (RFC 6265 §5.2, 6265bis §5.6) on one header value.
///
/// Beyond not crashing: what it returns obeys the limits and shapes the RFC gives, and a
/// parsed cookie written back as a `Set-Cookie` header parses to the same cookie.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let header = inputText(data, size)
    guard let cookie = SetCookieParser.parse(header) else { return 0 }

    // 6265bis §5.6 step 1: a header with a control character other than HTAB is ignored.
    require(!header.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }, "a CTL header gave a cookie")
    // Steps 2-4: the pair runs to the first ";", the name to the first "=", both trimmed.
    // Bytes, not Characters: Swift finds ";" in U+037E, which is canonically equivalent.
    let semicolon = UInt8(ascii: ";")
    require(!cookie.name.utf8.contains(semicolon) && !cookie.value.utf8.contains(semicolon), "a \";\" in \(cookie)")
    require(!cookie.name.utf8.contains(UInt8(ascii: "=")), "a \"=\" in the name of \(cookie)")
    require(isTrimmed(cookie.name) && isTrimmed(cookie.value), "untrimmed name or value in \(cookie)")
    require(!(cookie.name.isEmpty && cookie.value.isEmpty), "a cookie with neither name nor value")
    require(
        cookie.name.utf8.count + cookie.value.utf8.count <= SetCookieParser.maxNameValueBytes,
        "name and value over \(SetCookieParser.maxNameValueBytes) bytes")
    // §5.2.4: a kept path is empty (the default-path) or absolute, and within the limit.
    if let path = cookie.path {
        require(path.isEmpty || path.utf8.first == UInt8(ascii: "/"), "a relative path in \(cookie)")
        require(path.utf8.count <= SetCookieParser.maxAttributeValueBytes, "an over-long path")
    }
    // §5.2.3: the domain is lowercased.
    if let domain = cookie.domain {
        require(!domain.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }, "upper case in domain")
    }
    // §5.1.1 step 5: no cookie-date before 1601.
    if let expires = cookie.expires {
        require(expires.timeIntervalSince1970 >= -11_644_473_600, "an Expires before 1601: \(expires)")
    }

    // Lowercasing can lengthen a non-ASCII domain past the attribute limit, which would
    // then void it: no round trip for those.
    if let domain = cookie.domain, domain.utf8.count >= SetCookieParser.maxAttributeValueBytes { return 0 }
    let written = setCookieHeader(for: cookie)
    require(SetCookieParser.parse(written) == cookie, "\(cookie) written as \(written.debugDescription) differs")
    return 0
}

/// The cookie as a `Set-Cookie` value that should parse back to it.
private func setCookieHeader(for cookie: ParsedSetCookie) -> String {
    // "=value" keeps a nameless cookie nameless even when its value holds "=".
    var text = cookie.name + "=" + cookie.value
    if let expires = cookie.expires {
        text += "; Expires=" + HTTPDate.imfFixdate(secondsSince1970: Int(expires.timeIntervalSince1970))
    }
    if let maxAge = cookie.maxAge { text += "; Max-Age=\(maxAge)" }
    // The parser drops one leading dot: a dot before the domain keeps whatever follows it
    // (another dot, whitespace) as it is.
    if let domain = cookie.domain { text += "; Domain=." + domain }
    if let path = cookie.path { text += "; Path=" + path }
    if cookie.secure { text += "; Secure" }
    if cookie.httpOnly { text += "; HttpOnly" }
    if cookie.sameSite != .unspecified { text += "; SameSite=" + cookie.sameSite.rawValue }
    return text
}
