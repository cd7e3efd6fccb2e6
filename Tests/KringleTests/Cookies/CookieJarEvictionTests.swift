import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

/// RFC 6265 §6.1 limits and the eviction order of §5.3 (6265bis §5.7).
@Suite("RFC 6265 §6.1 limits and eviction")
struct CookieJarEvictionTests {
    private static let t0 = TestSupport.now

    /// Stores `count` cookies `n0`, `n1`, … on `host`, one second apart, each on its own path.
    private static func fill(
        _ jar: CookieJar, host: String, count: Int, from start: Int = 0, scheme: String = "http",
        attributes: String = ""
    ) {
        for index in start..<(start + count) {
            jar.store(
                "n\(index)=v; Path=/p\(index)\(attributes)", from: "\(scheme)://\(host)/",
                now: t0.addingTimeInterval(TimeInterval(index)))
        }
    }

    private static func names(_ jar: CookieJar) -> Set<String> { Set(jar.allCookies.map(\.name)) }

    @Test("the default limits are 50 per domain and 3000 in all")
    func defaults() {
        #expect(CookieJar.Limits.default == CookieJar.Limits(cookiesPerDomain: 50, totalCookies: 3_000))
    }

    @Test("per domain: the least recently accessed cookie goes first")
    func perDomainLRU() {
        let jar = CookieJar()
        Self.fill(jar, host: "example.com", count: 50)
        #expect(jar.allCookies.count == 50)
        // Touch n0 so that n1 becomes the least recently accessed.
        #expect(jar.header("http://example.com/p0", now: Self.t0.addingTimeInterval(100)) == "n0=v")
        jar.store("n50=v; Path=/p50", from: "http://www.example.com/", now: Self.t0.addingTimeInterval(101))
        #expect(jar.allCookies.count == 50)
        #expect(!Self.names(jar).contains("n1"))
        #expect(Self.names(jar).contains("n0"))
        #expect(Self.names(jar).contains("n50"))
    }

    @Test("per domain: expired cookies go before live ones")
    func perDomainExpiredFirst() {
        let jar = CookieJar()
        Self.fill(jar, host: "example.com", count: 49)
        jar.store("short=v; Max-Age=10; Path=/short", from: "http://example.com/", now: Self.t0.addingTimeInterval(50))
        jar.store("n50=v; Path=/p50", from: "http://example.com/", now: Self.t0.addingTimeInterval(100))
        #expect(jar.allCookies.count == 50)
        #expect(!Self.names(jar).contains("short"))
        #expect(Self.names(jar).contains("n0"))
    }

    @Test("per domain: non-Secure cookies go before Secure ones")
    func perDomainInsecureFirst() {
        let jar = CookieJar()
        jar.store("secure=v; Secure; Path=/s", from: "https://example.com/", now: Self.t0.addingTimeInterval(-10))
        Self.fill(jar, host: "example.com", count: 50)
        #expect(jar.allCookies.count == 50)
        #expect(Self.names(jar).contains("secure"))
        #expect(!Self.names(jar).contains("n0"))
    }

    @Test("per domain: other domains are unaffected")
    func perDomainIsolation() {
        let jar = CookieJar()
        Self.fill(jar, host: "example.org", count: 5)
        Self.fill(jar, host: "example.com", count: 60, from: 10)
        #expect(jar.allCookies.count == 55)
        #expect(jar.allCookies.filter { $0.domain == "example.org" }.count == 5)
    }

    @Test("in all: 3000 cookies, then the least recently accessed goes")
    func globalLimit() {
        let jar = CookieJar()
        for domain in 0..<100 {
            for index in 0..<30 {
                let time = Self.t0.addingTimeInterval(TimeInterval(domain * 30 + index))
                jar.store("c\(index)=v", from: "http://d\(domain).example\(domain).com/", now: time)
            }
        }
        #expect(jar.allCookies.count == 3_000)
        jar.store("fresh=v", from: "http://new.example.net/", now: Self.t0.addingTimeInterval(10_000))
        let cookies = jar.allCookies
        #expect(cookies.count == 3_000)
        #expect(cookies.contains { $0.name == "fresh" })
        #expect(!cookies.contains { $0.name == "c0" && $0.domain == "d0.example0.com" })
        #expect(cookies.contains { $0.name == "c1" && $0.domain == "d0.example0.com" })
    }

    @Test("in all: expired cookies go first")
    func globalExpiredFirst() {
        let jar = CookieJar(limits: CookieJar.Limits(cookiesPerDomain: 50, totalCookies: 3))
        jar.store("a=1", from: "http://a.com/", now: Self.t0)
        jar.store("b=1; Max-Age=5", from: "http://b.com/", now: Self.t0.addingTimeInterval(1))
        jar.store("c=1", from: "http://c.com/", now: Self.t0.addingTimeInterval(2))
        jar.store("d=1", from: "http://d.com/", now: Self.t0.addingTimeInterval(10))
        #expect(Self.names(jar) == ["a", "c", "d"])
    }

    @Test("limits are configurable", arguments: [(1, 10, 4), (2, 3, 3), (10, 100, 8)])
    func configurableLimits(perDomain: Int, total: Int, expected: Int) {
        let jar = CookieJar(limits: CookieJar.Limits(cookiesPerDomain: perDomain, totalCookies: total))
        for domain in ["a.com", "b.com", "c.com", "d.com"] {
            jar.store("x=1", "y=2", from: "http://\(domain)/")
        }
        #expect(jar.allCookies.count == expected)
    }
}
