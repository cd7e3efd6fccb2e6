import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

/// RFC 6265 §5.3 storage model, with the RFC 6265bis §5.7 updates.
@Suite("RFC 6265 §5.3 storage model")
struct CookieJarStorageModelTests {
    private static let http = "http://example.com/"
    private static let https = "https://example.com/"

    @Test(
        "§5.3 overwrite and deletion (name + domain + path + host-only)",
        arguments: [
            JarScenario(
                "same name, domain, path replaces", [(http, ["a=1"]), (http, ["a=2"])],
                request: http, expected: "a=2"),
            JarScenario(
                "6265bis: host-only and domain cookies of one name coexist",
                [(http, ["a=1", "a=2; Domain=example.com"])], request: http, expected: "a=1; a=2"),
            JarScenario(
                "only the domain cookie reaches subdomains",
                [(http, ["a=1", "a=2; Domain=example.com"])], request: "http://www.example.com/", expected: "a=2"),
            JarScenario(
                "different paths are different cookies", [(http, ["a=1; Path=/", "a=2; Path=/x"])],
                request: "http://example.com/x/y", expected: "a=2; a=1"),
            JarScenario(
                "Max-Age=0 deletes", [(http, ["a=1", "b=2"]), (http, ["a=gone; Max-Age=0"])],
                request: http, expected: "b=2"),
            JarScenario(
                "negative Max-Age deletes", [(http, ["a=1"]), (http, ["a=; Max-Age=-1"])],
                request: http, expected: nil),
            JarScenario(
                "past Expires deletes", [(http, ["a=1"]), (http, ["a=; Expires=Thu, 01 Jan 1970 00:00:00 GMT"])],
                request: http, expected: nil),
            JarScenario(
                "deletion needs the same path", [(http, ["a=1; Path=/x"]), (http, ["a=; Max-Age=0"])],
                request: "http://example.com/x", expected: "a=1"),
            JarScenario(
                "deletion needs the same host-only flag",
                [(http, ["a=1; Domain=example.com"]), (http, ["a=; Max-Age=0"])], request: http, expected: "a=1"),
            JarScenario(
                "an expired cookie with nothing to delete is dropped", [(http, ["a=1; Max-Age=0"])],
                request: http, expected: nil),
            JarScenario(
                "invalid headers are ignored one by one",
                [(http, ["a=1", "b\u{1}=2", "c=3; Domain=other.org", "", "=", "d=4"])], request: http,
                expected: "a=1; d=4"),
            JarScenario(
                "Max-Age beats an earlier Expires",
                [(http, ["a=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=60"])],
                request: http, expected: "a=1"),
            JarScenario(
                "Max-Age beats a later Expires", [(http, ["a=1; Max-Age=0; Expires=Fri, 01 Jan 2038 00:00:00 GMT"])],
                request: http, expected: nil),
            JarScenario(
                "HttpOnly cookies are stored and sent (HTTP API)", [(http, ["a=1; HttpOnly"])],
                request: http, expected: "a=1"),
            JarScenario(
                "an over-long attribute value is ignored, not the cookie",
                [("http://example.com/dir/page", ["a=1; Path=/" + String(repeating: "x", count: 1_024)])],
                request: "http://example.com/dir/x", expected: "a=1"),
            JarScenario(
                "name and value over 4096 bytes are ignored",
                [(http, ["a=" + String(repeating: "v", count: 4_096), "b=2"])], request: http, expected: "b=2"),
        ])
    func overwriteAndDeletion(_ scenario: JarScenario) {
        #expect(scenario.run() == scenario.expected)
    }

    @Test(
        "§5.3 steps 4-6 Domain attribute",
        arguments: [
            JarScenario(
                "leading dot and case are ignored", [("http://www.example.com/", ["a=1; Domain=.EXAMPLE.com"])],
                request: "http://example.com/", expected: "a=1"),
            JarScenario(
                "a domain the host is not in is rejected",
                [("http://www.example.com/", ["a=1; Domain=other.example.com"])],
                request: "http://other.example.com/", expected: nil),
            JarScenario(
                "a subdomain of the host is rejected", [(http, ["a=1; Domain=www.example.com"])],
                request: "http://www.example.com/", expected: nil),
            JarScenario(
                "6265bis: an empty last Domain makes the cookie host-only",
                [(http, ["a=1; Domain=example.com; Domain="])], request: "http://www.example.com/", expected: nil),
            JarScenario(
                "…and it is still sent to the host", [(http, ["a=1; Domain=example.com; Domain="])],
                request: http, expected: "a=1"),
            JarScenario(
                "6265bis: a non-ASCII Domain is rejected",
                [("http://xn--85x722f.com.cn/", ["a=1; Domain=食狮.com.cn"])],
                request: "http://xn--85x722f.com.cn/", expected: nil),
            JarScenario(
                "an IDN host is matched in punycode form", [("http://食狮.com.cn/", ["a=1; Domain=xn--85x722f.com.cn"])],
                request: "http://www.xn--85x722f.com.cn/", expected: "a=1"),
        ])
    func domainAttribute(_ scenario: JarScenario) {
        #expect(scenario.run() == scenario.expected)
    }

    @Test(
        "§5.3 step 5 public suffixes",
        arguments: [
            JarScenario(
                "Domain=com is rejected", [("http://www.example.com/", ["a=1; Domain=com"])],
                request: "http://www.example.com/", expected: nil),
            JarScenario(
                "Domain=co.uk is rejected", [("http://www.example.co.uk/", ["a=1; Domain=co.uk"])],
                request: "http://www.example.co.uk/", expected: nil),
            JarScenario(
                "Domain=github.io is rejected (private section)",
                [("http://foo.github.io/", ["a=1; Domain=github.io"])],
                request: "http://foo.github.io/", expected: nil),
            JarScenario(
                "Domain=foo.github.io is fine", [("http://foo.github.io/", ["a=1; Domain=foo.github.io"])],
                request: "http://bar.foo.github.io/", expected: "a=1"),
            JarScenario(
                "a host-only cookie of foo.github.io stays there", [("http://foo.github.io/", ["a=1"])],
                request: "http://bar.github.io/", expected: nil),
            JarScenario(
                "the suffix host itself may set it, host-only", [("http://co.uk/", ["a=1; Domain=co.uk"])],
                request: "http://co.uk/", expected: "a=1"),
            JarScenario(
                "…and it does not reach below the suffix", [("http://co.uk/", ["a=1; Domain=co.uk"])],
                request: "http://www.co.uk/", expected: nil),
            JarScenario(
                "wildcard rule *.ck", [("http://a.b.test.ck/", ["a=1; Domain=test.ck"])],
                request: "http://a.b.test.ck/", expected: nil),
            JarScenario(
                "exception rule !www.ck", [("http://a.www.ck/", ["a=1; Domain=www.ck"])],
                request: "http://b.www.ck/", expected: "a=1"),
        ])
    func publicSuffixes(_ scenario: JarScenario) {
        #expect(scenario.run() == scenario.expected)
    }

    @Test(
        "§5.1.3 IP hosts are always host-only",
        arguments: [
            JarScenario(
                "IPv4 host-only cookie", [("http://192.168.0.1/", ["a=1"])],
                request: "http://192.168.0.1:8080/", expected: "a=1"),
            JarScenario(
                "Domain equal to the IPv4 host is host-only", [("http://192.168.0.1/", ["a=1; Domain=192.168.0.1"])],
                request: "http://192.168.0.1/", expected: "a=1"),
            JarScenario(
                "Domain as an IPv4 suffix is rejected", [("http://192.168.0.1/", ["a=1; Domain=168.0.1"])],
                request: "http://192.168.0.1/", expected: nil),
            JarScenario(
                "never sent to another address", [("http://192.168.0.1/", ["a=1"])],
                request: "http://192.168.0.2/", expected: nil),
            JarScenario(
                "IPv6 host-only cookie", [("http://[::1]:8080/", ["a=1"])],
                request: "http://[::1]/", expected: "a=1"),
            JarScenario(
                "bracketed IPv6 Domain equal to the host", [("http://[::1]/", ["a=1; Domain=[::1]"])],
                request: "http://[::1]/", expected: "a=1"),
            JarScenario(
                "a name host cannot set an IP Domain", [("http://example.com/", ["a=1; Domain=192.168.0.1"])],
                request: "http://192.168.0.1/", expected: nil),
        ])
    func ipHosts(_ scenario: JarScenario) {
        #expect(scenario.run() == scenario.expected)
    }

    @Test(
        "6265bis §5.7 Secure cookies and insecure origins",
        arguments: [
            JarScenario("Secure from http is ignored", [(http, ["a=1; Secure"])], request: https, expected: nil),
            JarScenario("Secure from https is stored", [(https, ["a=1; Secure"])], request: https, expected: "a=1"),
            JarScenario(
                "http cannot overwrite a Secure cookie", [(https, ["a=1; Secure"]), (http, ["a=2"])],
                request: https, expected: "a=1"),
            JarScenario(
                "http cannot delete a Secure cookie", [(https, ["a=1; Secure"]), (http, ["a=; Max-Age=0"])],
                request: https, expected: "a=1"),
            JarScenario(
                "http cannot shadow it from the parent domain",
                [
                    ("https://www.example.com/", ["a=1; Secure"]),
                    ("http://www.example.com/", ["a=2; Domain=example.com"]),
                ],
                request: "https://www.example.com/", expected: "a=1"),
            JarScenario(
                "http cannot shadow it on a deeper path",
                [(https, ["a=1; Secure"]), (http, ["a=2; Path=/deeper"])],
                request: "https://example.com/deeper", expected: "a=1"),
            JarScenario(
                "http may use the name on a path the Secure cookie does not cover",
                [(https, ["a=1; Secure; Path=/login"]), (http, ["a=2; Path=/"])],
                request: "https://example.com/login", expected: "a=1; a=2"),
            JarScenario(
                "https may replace a Secure cookie with a plain one", [(https, ["a=1; Secure"]), (https, ["a=2"])],
                request: http, expected: "a=2"),
            JarScenario(
                "6265bis: SameSite=None needs Secure", [(https, ["a=1; SameSite=None"])],
                request: https, expected: nil),
            JarScenario(
                "SameSite=None with Secure is fine", [(https, ["a=1; SameSite=None; Secure"])],
                request: https, expected: "a=1"),
            JarScenario(
                "SameSite is not enforced (no site context)", [(http, ["a=1; SameSite=Strict", "b=2; SameSite=Lax"])],
                request: http, expected: "a=1; b=2"),
        ])
    func secureOrigins(_ scenario: JarScenario) {
        #expect(scenario.run() == scenario.expected)
    }

    @Test(
        "6265bis §5.7 cookie prefixes",
        arguments: [
            JarScenario(
                "__Secure- with Secure", [(https, ["__Secure-a=1; Secure"])], request: https, expected: "__Secure-a=1"),
            JarScenario("__Secure- without Secure", [(https, ["__Secure-a=1"])], request: https, expected: nil),
            JarScenario(
                "__SECURE- is matched case-insensitively", [(https, ["__SECURE-a=1"])], request: https, expected: nil),
            JarScenario("__Secure- from http", [(http, ["__Secure-a=1; Secure"])], request: https, expected: nil),
            JarScenario(
                "__Host- done right", [(https, ["__Host-a=1; Secure; Path=/"])], request: https, expected: "__Host-a=1"),
            JarScenario(
                "__Host- without a Path attribute", [(https, ["__Host-a=1; Secure"])], request: https, expected: nil),
            JarScenario(
                "__Host- with Path=/x", [("https://example.com/x/", ["__Host-a=1; Secure; Path=/x"])],
                request: "https://example.com/x/", expected: nil),
            JarScenario(
                "__Host- with a Domain", [(https, ["__Host-a=1; Secure; Path=/; Domain=example.com"])],
                request: https, expected: nil),
            JarScenario("__host- without Secure", [(https, ["__host-a=1; Path=/"])], request: https, expected: nil),
            JarScenario(
                "__HoSt- done right", [(https, ["__HoSt-a=1; Secure; Path=/"])], request: https, expected: "__HoSt-a=1"),
            JarScenario(
                "a nameless cookie cannot look like __Secure-", [(https, ["__Secure-x; Secure"])],
                request: https, expected: nil),
            JarScenario(
                "a nameless cookie cannot look like __Host-", [(https, ["=__host-x; Secure; Path=/"])],
                request: https, expected: nil),
        ])
    func prefixes(_ scenario: JarScenario) {
        #expect(scenario.run() == scenario.expected)
    }

    @Test("§5.3 step 11.3: replacement keeps the creation time")
    func replacementKeepsCreationTime() throws {
        let jar = CookieJar()
        let later = TestSupport.now.addingTimeInterval(60)
        jar.store("a=1", from: Self.http)
        jar.store("a=2; HttpOnly", from: Self.http, now: later)
        let cookie = try #require(jar.allCookies.first)
        #expect(jar.allCookies.count == 1)
        #expect(cookie.value == "2")
        #expect(cookie.httpOnly)
        #expect(cookie.creationTime == TestSupport.now)
        #expect(cookie.lastAccessTime == later)
    }

    @Test("stored fields")
    func storedFields() throws {
        let jar = CookieJar()
        jar.store(
            "sid=x; Domain=Example.com; Path=/app; Secure; HttpOnly; SameSite=Lax; Max-Age=3600",
            from: "https://www.example.com/login")
        let cookie = try #require(jar.allCookies.first)
        #expect(
            cookie
                == Cookie(
                    name: "sid", value: "x", domain: "example.com", path: "/app",
                    expires: TestSupport.now.addingTimeInterval(3_600), secure: true, httpOnly: true,
                    hostOnly: false, sameSite: .lax, creationTime: TestSupport.now))
    }

    @Test("6265bis: expiry is capped at 400 days")
    func expiryCap() throws {
        let jar = CookieJar()
        jar.store(
            "a=1; Max-Age=999999999", "b=2; Expires=Fri, 01 Jan 2100 00:00:00 GMT",
            "c=3; Expires=Wed, 01 Jan 2014 00:00:00 GMT", from: Self.http)
        let cap = TestSupport.now.addingTimeInterval(400 * 86_400)
        let expiries = Dictionary(uniqueKeysWithValues: jar.allCookies.map { ($0.name, $0.expires) })
        #expect(expiries["a"] == cap)
        #expect(expiries["b"] == cap)
        #expect(expiries["c"] == TestSupport.utc(2014, 1, 1))
        #expect(jar.header(Self.http, now: cap.addingTimeInterval(-1)) == "a=1; b=2")
        #expect(jar.header(Self.http, now: cap) == nil)
    }

    @Test("URLs without a host store nothing")
    func noHost() {
        let jar = CookieJar()
        jar.store(setCookieHeaders: ["a=1"], from: URL(fileURLWithPath: "/tmp/x"), now: TestSupport.now)
        #expect(jar.allCookies.isEmpty)
        #expect(jar.cookieHeader(for: URL(fileURLWithPath: "/tmp/x"), now: TestSupport.now) == nil)
    }
}
