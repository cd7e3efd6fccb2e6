import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

/// RFC 6265 §5.4 (6265bis §5.8.3): the Cookie header.
@Suite("RFC 6265 §5.4 Cookie header")
struct CookieJarRetrievalTests {
    private static let http = "http://example.com/"

    @Test(
        "§5.4 step 2 ordering",
        arguments: [
            JarScenario(
                "longer paths first",
                [("http://example.com/a/b/c", ["x=1; Path=/", "y=2; Path=/a/b", "z=3; Path=/a"])],
                request: "http://example.com/a/b/c", expected: "y=2; z=3; x=1"),
            JarScenario(
                "equal paths: creation order, ties by sequence", [(http, ["b=1", "a=2", "c=3"])],
                request: http, expected: "b=1; a=2; c=3"),
            JarScenario(
                "equal paths: earlier creation first", timed: [(http, ["b=1"], 0), (http, ["a=2"], 10)],
                request: http, expected: "b=1; a=2"),
            JarScenario(
                "a replaced cookie keeps its place",
                timed: [(http, ["a=1"], 0), (http, ["b=2"], 10), (http, ["a=3"], 20)],
                request: http, expected: "a=3; b=2"),
            JarScenario(
                "domain and host-only cookies interleave by creation",
                [("http://www.example.com/", ["a=1; Domain=example.com", "b=2", "c=3; Domain=www.example.com"])],
                request: "http://www.example.com/", expected: "a=1; b=2; c=3"),
            JarScenario(
                "nameless cookies are sent as their value", [(http, ["foo", "a=b", "=bar"])],
                request: http, expected: "bar; a=b"),
            JarScenario("an empty value keeps its =", [(http, ["a="])], request: http, expected: "a="),
        ])
    func ordering(_ scenario: JarScenario) {
        #expect(scenario.run() == scenario.expected)
    }

    @Test(
        "§5.4 step 1 matching",
        arguments: [
            JarScenario("nothing stored", [], request: http, expected: nil),
            JarScenario(
                "host names are case-insensitive", [(http, ["a=1"])], request: "http://EXAMPLE.com/", expected: "a=1"),
            JarScenario(
                "a trailing dot is the same host", [(http, ["a=1"])], request: "http://example.com./", expected: "a=1"),
            JarScenario(
                "ports do not matter", [("http://example.com:8080/", ["a=1"])],
                request: "http://example.com:9090/", expected: "a=1"),
            JarScenario(
                "host-only cookies skip subdomains", [(http, ["a=1"])], request: "http://www.example.com/",
                expected: nil),
            JarScenario(
                "domain cookies reach subdomains", [(http, ["a=1; Domain=example.com"])],
                request: "http://a.b.example.com/", expected: "a=1"),
            JarScenario(
                "…but not lookalike hosts", [(http, ["a=1; Domain=example.com"])],
                request: "http://badexample.com/", expected: nil),
            JarScenario(
                "paths must path-match", [(http, ["a=1; Path=/docs"])],
                request: "http://example.com/docsearch", expected: nil),
            JarScenario(
                "paths are not percent-decoded", [(http, ["a=1; Path=/foo"])],
                request: "http://example.com/f%6Fo", expected: nil),
            JarScenario(
                "Secure cookies go over https", [("https://example.com/", ["a=1; Secure", "b=2"])],
                request: "https://example.com/", expected: "a=1; b=2"),
            JarScenario(
                "Secure cookies go over wss", [("https://example.com/", ["a=1; Secure", "b=2"])],
                request: "wss://example.com/", expected: "a=1; b=2"),
            JarScenario(
                "Secure cookies skip http", [("https://example.com/", ["a=1; Secure", "b=2"])],
                request: "http://example.com/", expected: "b=2"),
            JarScenario(
                "Secure cookies skip ws", [("https://example.com/", ["a=1; Secure", "b=2"])],
                request: "ws://example.com/", expected: "b=2"),
        ])
    func matching(_ scenario: JarScenario) {
        #expect(scenario.run() == scenario.expected)
    }

    @Test("expiry over time: expired cookies are never sent")
    func expiryOverTime() {
        let jar = CookieJar()
        let t0 = TestSupport.now
        jar.store("a=1; Max-Age=60", "b=2; Expires=Tue, 01 Jan 2013 12:02:00 GMT", "c=3", from: Self.http, now: t0)
        #expect(jar.header(Self.http, now: t0.addingTimeInterval(59)) == "a=1; b=2; c=3")
        #expect(jar.header(Self.http, now: t0.addingTimeInterval(60)) == "b=2; c=3")
        #expect(jar.header(Self.http, now: t0.addingTimeInterval(119)) == "b=2; c=3")
        #expect(jar.header(Self.http, now: t0.addingTimeInterval(120)) == "c=3")
        #expect(jar.header(Self.http, now: t0.addingTimeInterval(10 * 365 * 86_400)) == "c=3")  // session cookie
        #expect(jar.allCookies.map(\.name) == ["c"])  // expired ones were evicted on sight
    }

    @Test("removeExpired(now:) evicts expired cookies")
    func removeExpired() {
        let jar = CookieJar()
        jar.store("a=1; Max-Age=60", "b=2; Max-Age=600", "c=3", from: Self.http)
        jar.removeExpired(now: TestSupport.now.addingTimeInterval(61))
        #expect(jar.allCookies.map(\.name) == ["b", "c"])
    }

    @Test("§5.4 step 3: last-access time is updated")
    func lastAccessTime() throws {
        let jar = CookieJar()
        let later = TestSupport.now.addingTimeInterval(30)
        jar.store("a=1", "b=2; Path=/other", from: Self.http)
        let sent = jar.cookies(for: TestSupport.url(Self.http), now: later)
        #expect(sent.map(\.lastAccessTime) == [later])
        let stored = Dictionary(uniqueKeysWithValues: jar.allCookies.map { ($0.name, $0) })
        #expect(stored["a"]?.lastAccessTime == later)
        #expect(stored["a"]?.creationTime == TestSupport.now)
        #expect(stored["b"]?.lastAccessTime == TestSupport.now)  // not sent, not touched
    }

    @Test("remove(_:) and removeAll()")
    func removing() throws {
        let jar = CookieJar()
        jar.store("a=1", "a=2; Domain=example.com", "a=3; Path=/x", "b=4", from: Self.http)
        let cookie = try #require(jar.allCookies.first)
        jar.remove(Cookie(name: cookie.name, value: "ignored", domain: cookie.domain, path: cookie.path))
        #expect(jar.header("http://example.com/x") == "a=3; b=4")  // both host-only and domain "a" at "/"
        jar.removeAll()
        #expect(jar.allCookies.isEmpty)
        #expect(jar.header(Self.http) == nil)
    }

    @Test("lookups only consult the request host's registrable domain")
    func registrableDomainIndex() {
        let jar = CookieJar()
        jar.store("a=1", from: "http://a.b.example.com/")
        jar.store("a=1; Domain=example.co.uk", from: "http://www.example.co.uk/")
        jar.store("a=1", from: "http://192.168.0.1/")
        jar.store("a=1", from: "http://localhost/")
        jar.store("a=1", from: "http://user.github.io/")
        let keys = jar.state.withLock { Set($0.buckets.keys) }
        #expect(keys == ["example.com", "example.co.uk", "192.168.0.1", "localhost", "user.github.io"])
        let lookupKey = jar.state.withLock { $0.bucketKey(for: "x.a.b.example.com") }
        #expect(lookupKey == "example.com")
        #expect(jar.header("http://x.y.user.github.io/") == nil)
        #expect(jar.header("http://a.b.example.com/") == "a=1")
    }
}
