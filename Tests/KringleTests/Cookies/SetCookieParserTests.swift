import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

/// RFC 6265 §5.2 (6265bis §5.6): parsing a `Set-Cookie` header.
@Suite("RFC 6265 §5.2 Set-Cookie parsing")
struct SetCookieParserTests {
    private static let long1024 = String(repeating: "x", count: 1_023)

    static let attributeCases: [(String, ParsedSetCookie)] = [
        ("a=b; Secure", ParsedSetCookie(name: "a", value: "b", secure: true)),
        ("a=b; seCURe=yes", ParsedSetCookie(name: "a", value: "b", secure: true)),
        ("a=b; \"Secure\"", ParsedSetCookie(name: "a", value: "b")),
        ("a=b; HttpOnly", ParsedSetCookie(name: "a", value: "b", httpOnly: true)),
        ("a=b; Path=/x/y", ParsedSetCookie(name: "a", value: "b", path: "/x/y")),
        ("a=b; Path=x", ParsedSetCookie(name: "a", value: "b", path: "")),
        ("a=b; Path=", ParsedSetCookie(name: "a", value: "b", path: "")),
        ("a=b; Path=/x; Path=/y", ParsedSetCookie(name: "a", value: "b", path: "/y")),
        ("a=b; Domain=.Example.COM", ParsedSetCookie(name: "a", value: "b", domain: "example.com")),
        ("a=b; Domain=..example.com", ParsedSetCookie(name: "a", value: "b", domain: ".example.com")),
        ("a=b; Domain=x.com; Domain=", ParsedSetCookie(name: "a", value: "b", domain: "")),
        ("a=b; Max-Age=60", ParsedSetCookie(name: "a", value: "b", maxAge: 60)),
        ("a=b; Max-Age=-5", ParsedSetCookie(name: "a", value: "b", maxAge: -5)),
        ("a=b; Max-Age=60; Max-Age=oops", ParsedSetCookie(name: "a", value: "b", maxAge: 60)),
        ("a=b; Max-Age=50,399", ParsedSetCookie(name: "a", value: "b")),
        ("a=b; Max-Age=+5", ParsedSetCookie(name: "a", value: "b")),
        ("a=b; Max-Age=-", ParsedSetCookie(name: "a", value: "b")),
        ("a=b; Max-Age=", ParsedSetCookie(name: "a", value: "b")),
        ("a=b; Max-Age=99999999999999999999999", ParsedSetCookie(name: "a", value: "b", maxAge: .max)),
        (
            "a=b; Expires=Fri, 07 Aug 2019 08:04:19 GMT",
            ParsedSetCookie(name: "a", value: "b", expires: Date(timeIntervalSince1970: 1_565_165_059))
        ),
        (
            "a=b; Expires=Fri, 07 Aug 2019 08:04:19 GMT; Expires=bogus",
            ParsedSetCookie(name: "a", value: "b", expires: Date(timeIntervalSince1970: 1_565_165_059))
        ),
        ("a=b; SameSite=Strict", ParsedSetCookie(name: "a", value: "b", sameSite: .strict)),
        ("a=b; samesite=LAX", ParsedSetCookie(name: "a", value: "b", sameSite: .lax)),
        ("a=b; SameSite=None", ParsedSetCookie(name: "a", value: "b", sameSite: .none)),
        ("a=b; SameSite=bogus", ParsedSetCookie(name: "a", value: "b", sameSite: .unspecified)),
        ("a=b; SameSite=Lax; SameSite=bogus", ParsedSetCookie(name: "a", value: "b", sameSite: .unspecified)),
        ("a=b; Version=1; Comment=x; Priority=High", ParsedSetCookie(name: "a", value: "b")),
        ("a=b;;; ;Secure;", ParsedSetCookie(name: "a", value: "b", secure: true)),
        // 6265bis §5.6: an attribute value over 1024 bytes voids the attribute, not the cookie.
        ("a=b; Path=/" + long1024, ParsedSetCookie(name: "a", value: "b", path: "/" + long1024)),
        ("a=b; Path=/" + long1024 + "x", ParsedSetCookie(name: "a", value: "b")),
        ("a=b; Path=/ok; Path=/" + long1024 + "x", ParsedSetCookie(name: "a", value: "b", path: "/ok")),
    ]

    static let nameValueCases: [(String, ParsedSetCookie)] = [
        ("foo=bar", ParsedSetCookie(name: "foo", value: "bar")),
        ("  foo \t=\t bar  ", ParsedSetCookie(name: "foo", value: "bar")),
        ("foo=", ParsedSetCookie(name: "foo", value: "")),
        ("foo=\"bar\"", ParsedSetCookie(name: "foo", value: "\"bar\"")),
        ("foo=a=b=c", ParsedSetCookie(name: "foo", value: "a=b=c")),
        ("foo=bar\tbaz", ParsedSetCookie(name: "foo", value: "bar\tbaz")),
        ("foo bar=baz", ParsedSetCookie(name: "foo bar", value: "baz")),
        ("foo=春节", ParsedSetCookie(name: "foo", value: "春节")),
        // RFC 6265bis nameless cookies: no "=", or an empty name.
        ("foo", ParsedSetCookie(name: "", value: "foo")),
        ("=foo", ParsedSetCookie(name: "", value: "foo")),
        ("===a=bar", ParsedSetCookie(name: "", value: "==a=bar")),
        ("foo; Path=/x", ParsedSetCookie(name: "", value: "foo", path: "/x")),
    ]

    static let ignoredCases: [String] = [
        "", "   ", "=", " = ", ";", "; Path=/",
        "a=b\u{0}c", "a=b\rc", "a=b\nc", "a\u{1}=b", "a=b\u{7F}", "a=b; Path=/\u{1F}",
        String(repeating: "n", count: 2_048) + "=" + String(repeating: "v", count: 2_049),
        String(repeating: "v", count: 4_097),
    ]

    @Test("§5.2 name-value-pair", arguments: Self.nameValueCases)
    func nameValuePair(header: String, expected: ParsedSetCookie) {
        #expect(SetCookieParser.parse(header) == expected)
    }

    @Test("6265bis §5.6: headers ignored entirely", arguments: Self.ignoredCases)
    func ignoredHeaders(header: String) {
        #expect(SetCookieParser.parse(header) == nil)
    }

    @Test("6265bis §5.6: name plus value up to 4096 bytes is kept")
    func sizeLimitBoundary() {
        let name = String(repeating: "n", count: 2_048), value = String(repeating: "v", count: 2_048)
        #expect(SetCookieParser.parse(name + "=" + value)?.value == value)
        #expect(SetCookieParser.parse(String(repeating: "é", count: 2_048)) != nil)  // 4096 bytes
        #expect(SetCookieParser.parse(String(repeating: "é", count: 2_048) + "e") == nil)  // 4097 bytes
    }

    @Test("§5.2 attributes", arguments: Self.attributeCases)
    func attributes(header: String, expected: ParsedSetCookie) {
        #expect(SetCookieParser.parse(header) == expected)
    }
}
