import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Cookies loaded from a file get the checks of a `Set-Cookie` header (RFC 6265bis §5.6,
/// §5.7); what fails is dropped and counted in the jar's load report.
@Suite("Cookie file contents are checked like Set-Cookie")
struct CookieJarLoadTests {
    /// A stored cookie that passes every check, changed by one row of the table.
    private static func cookie(_ change: (inout Cookie) -> Void = { _ in }) -> Cookie {
        var cookie = Cookie(
            name: "bad", value: "v", domain: "example.com", path: "/", expires: TestSupport.now.addingTimeInterval(600),
            secure: true, hostOnly: true, creationTime: TestSupport.now.addingTimeInterval(-60))
        change(&cookie)
        return cookie
    }

    /// A jar loaded at the pinned time from a 0600 file holding `cookies`.
    private static func load(_ cookies: [Cookie], limits: CookieJar.Limits = .default) throws -> (CookieJar, URL) {
        let directory = try TestSupport.temporaryDirectory()
        let file = directory.appendingPathComponent("cookies.json")
        try CookieJarFile.encode(cookies).write(to: file)
        #expect(chmod(file.path, 0o600) == 0)
        return (try CookieJar(fileURL: file, limits: limits, now: TestSupport.now), directory)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let cookie: Cookie
        /// The rule broken, or `nil` for a cookie that loads.
        let violation: CookieJar.LoadReport.Violation?
        init(_ name: String, _ violation: CookieJar.LoadReport.Violation?, _ change: @escaping (inout Cookie) -> Void) {
            self.name = name
            self.cookie = CookieJarLoadTests.cookie(change)
            self.violation = violation
        }
        var testDescription: String { name }
    }

    @Test(
        "each stored cookie is held to the Set-Cookie rules",
        arguments: [
            Row("RFC 6265bis §5.6 step 1: a control character in the name", .controlCharacter) { $0.name = "b\u{1}d" },
            Row("RFC 6265bis §5.6 step 1: DEL in the value", .controlCharacter) { $0.value = "v\u{7F}" },
            Row("RFC 6265bis §5.6 step 1: a line feed in the domain", .controlCharacter) {
                $0.domain = "example.com\nx"
            },
            Row("RFC 6265bis §5.6 step 1: a NUL in the path", .controlCharacter) { $0.path = "/a\u{0}b" },
            Row("RFC 6265bis §5.6 step 1: HTAB inside the value is allowed", nil) { $0.value = "a\tb" },
            Row("RFC 6265bis §5.6 step 3: empty name and value", .malformedNameOrValue) {
                $0.name = ""
                $0.value = ""
            },
            Row("RFC 6265bis §5.6 step 2: a nameless cookie loads", nil) { $0.name = "" },
            Row("RFC 6265 §5.2: = in the name", .malformedNameOrValue) { $0.name = "a=b" },
            Row("RFC 6265 §5.2: ; in the name", .malformedNameOrValue) { $0.name = "a;b" },
            Row("RFC 6265 §5.2: ; in the value", .malformedNameOrValue) { $0.value = "v; Domain=com" },
            Row("RFC 6265 §5.2: white space around the name", .malformedNameOrValue) { $0.name = " bad" },
            Row("RFC 6265 §5.2: white space around the value", .malformedNameOrValue) { $0.value = "v\t" },
            Row("RFC 6265bis §5.6 step 4: name and value of 4097 bytes", .tooLarge) {
                $0.value = String(repeating: "x", count: 4_097 - 3)
            },
            Row("RFC 6265bis §5.6 step 4: name and value of 4096 bytes load", nil) {
                $0.value = String(repeating: "x", count: 4_096 - 3)
            },
            Row("RFC 6265bis §5.6 step 7: a Domain over 1024 bytes", .tooLarge) {
                $0.domain = String(repeating: "a.", count: 510) + "example.com"
                $0.hostOnly = false
            },
            Row("RFC 6265 §5.1.2: an upper-case domain", .invalidDomain) { $0.domain = "Example.com" },
            Row("RFC 6265 §5.1.2: a trailing dot", .invalidDomain) { $0.domain = "example.com." },
            Row("RFC 6265 §5.1.2: an empty domain", .invalidDomain) { $0.domain = "" },
            Row("RFC 6265 §5.1.2: ; in the domain", .invalidDomain) { $0.domain = "example.com;x" },
            Row("RFC 6265 §5.1.2: a space in the domain", .invalidDomain) { $0.domain = "exa mple.com" },
            Row("RFC 6265 §5.1.3: a domain cookie for an IP address", .invalidDomain) {
                $0.domain = "192.0.2.1"
                $0.hostOnly = false
            },
            Row("RFC 6265 §5.1.3: a host-only cookie for an IP address loads", nil) { $0.domain = "192.0.2.1" },
            Row("RFC 6265 §5.3 step 5: a domain cookie for com", .publicSuffixDomain) {
                $0.domain = "com"
                $0.hostOnly = false
            },
            Row("RFC 6265 §5.3 step 5: a domain cookie for co.uk", .publicSuffixDomain) {
                $0.domain = "co.uk"
                $0.hostOnly = false
            },
            Row("RFC 6265 §5.3 step 5: a domain cookie for github.io (private section)", .publicSuffixDomain) {
                $0.domain = "github.io"
                $0.hostOnly = false
            },
            Row("RFC 6265 §5.3 step 5: a host-only cookie of a public-suffix host loads", nil) { $0.domain = "com" },
            Row("RFC 6265 §5.3 step 5: a domain cookie for a registrable domain loads", nil) { $0.hostOnly = false },
            Row("RFC 6265 §5.2.4: a relative path", .invalidPath) { $0.path = "a/b" },
            Row("RFC 6265 §5.2.4: an empty path", .invalidPath) { $0.path = "" },
            Row("RFC 6265 §5.2.4: ; in the path", .invalidPath) { $0.path = "/a;b" },
            Row("RFC 6265bis §4.1.3.1: __Secure- without Secure", .prefixViolation) {
                $0.name = "__Secure-id"
                $0.secure = false
            },
            Row("RFC 6265bis §4.1.3.1: __secure- in lower case without Secure", .prefixViolation) {
                $0.name = "__secure-id"
                $0.secure = false
            },
            Row("RFC 6265bis §4.1.3.2: __Host- for a domain", .prefixViolation) {
                $0.name = "__Host-id"
                $0.hostOnly = false
            },
            Row("RFC 6265bis §4.1.3.2: __Host- for a path below /", .prefixViolation) {
                $0.name = "__Host-id"
                $0.path = "/app"
            },
            Row("RFC 6265bis §4.1.3.2: __Host- without Secure", .prefixViolation) {
                $0.name = "__Host-id"
                $0.secure = false
            },
            Row("RFC 6265bis §4.1.3.2: a valid __Host- cookie loads", nil) { $0.name = "__Host-id" },
            Row("RFC 6265bis §5.7: a nameless cookie posing as __Host-", .prefixViolation) {
                $0.name = ""
                $0.value = "__Host-id=1"
            },
            Row("RFC 6265bis §5.7: SameSite=None without Secure", .sameSiteNoneWithoutSecure) {
                $0.sameSite = .none
                $0.secure = false
            },
            Row("a session cookie, which a jar never writes", .sessionCookie) { $0.expires = nil },
        ])
    func rule(row: Row) throws {
        let good = Self.cookie { $0.name = "good" }
        let (jar, directory) = try Self.load([good, row.cookie])
        defer { TestSupport.remove(directory) }
        if let violation = row.violation {
            #expect(jar.loadReport == CookieJar.LoadReport(loaded: 1, dropped: [violation: 1]))
            #expect(jar.allCookies.map(\.name) == ["good"])
        } else {
            #expect(jar.loadReport == CookieJar.LoadReport(loaded: 2))
            #expect(jar.allCookies == [good, row.cookie])
        }
    }

    @Test("RFC 6265bis §5.5: an expiry beyond 400 days is capped, and counted")
    func expiryCap() throws {
        let far = Self.cookie { $0.expires = TestSupport.now.addingTimeInterval(1_000 * 86_400) }
        let (jar, directory) = try Self.load([far])
        defer { TestSupport.remove(directory) }
        #expect(jar.loadReport == CookieJar.LoadReport(loaded: 1, adjusted: 1))
        #expect(jar.allCookies.first?.expires == TestSupport.now.addingTimeInterval(400 * 86_400))
    }

    @Test("times in the future are moved back to the time of loading, and counted")
    func futureTimes() throws {
        let future = TestSupport.now.addingTimeInterval(86_400)
        let early = Self.cookie { $0.name = "early" }
        // A last-access time in the future would keep a planted cookie from ever being evicted.
        let planted = Self.cookie {
            $0.name = "planted"
            $0.creationTime = future
            $0.lastAccessTime = future
        }
        let (jar, directory) = try Self.load([planted, early])
        defer { TestSupport.remove(directory) }
        #expect(jar.loadReport == CookieJar.LoadReport(loaded: 2, adjusted: 1))
        let loaded = try #require(jar.allCookies.last)
        #expect(jar.allCookies.map(\.name) == ["early", "planted"])
        #expect(loaded.creationTime == TestSupport.now && loaded.lastAccessTime == TestSupport.now)
    }

    @Test("expired cookies are counted as expired, not dropped")
    func expired() throws {
        let old = Self.cookie { $0.expires = TestSupport.now.addingTimeInterval(-1) }
        let (jar, directory) = try Self.load([old])
        defer { TestSupport.remove(directory) }
        #expect(jar.loadReport == CookieJar.LoadReport(expired: 1))
        #expect(jar.loadReport.droppedCount == 0)
    }

    @Test("RFC 6265bis §5.7: a second cookie of the same identity is a duplicate; the earlier stays")
    func duplicates() throws {
        let first = Self.cookie { $0.value = "first" }
        let second = Self.cookie {
            $0.value = "second"
            $0.creationTime = TestSupport.now.addingTimeInterval(-30)
        }
        let domainCookie = Self.cookie {
            $0.value = "domain"
            $0.hostOnly = false  // another identity (RFC 6265bis §5.7 counts the host-only flag)
        }
        let (jar, directory) = try Self.load([second, domainCookie, first])
        defer { TestSupport.remove(directory) }
        #expect(jar.loadReport == CookieJar.LoadReport(loaded: 2, dropped: [.duplicate: 1]))
        #expect(Set(jar.allCookies.map(\.value)) == ["first", "domain"])
    }

    @Test("RFC 6265 §6.1: cookies beyond the limits are evicted, and counted")
    func evicted() throws {
        let cookies = (0..<5).map { index in
            Self.cookie {
                $0.name = "c\(index)"
                $0.lastAccessTime = TestSupport.now.addingTimeInterval(TimeInterval(index - 10))
            }
        }
        let (jar, directory) = try Self.load(cookies, limits: CookieJar.Limits(cookiesPerDomain: 3))
        defer { TestSupport.remove(directory) }
        #expect(jar.loadReport == CookieJar.LoadReport(loaded: 3, evicted: 2))
        #expect(jar.allCookies.map(\.name) == ["c2", "c3", "c4"])
    }

    @Test("the report reads as one line naming each rule broken")
    func description() {
        let report = CookieJar.LoadReport(
            loaded: 3, expired: 1, dropped: [.publicSuffixDomain: 2, .controlCharacter: 1])
        #expect(report.droppedCount == 3)
        #expect(
            report.description
                == "loaded 3, expired 1, adjusted 0, evicted 0, dropped 3 (control character: 1, public-suffix domain: 2)"
        )
        #expect(CookieJar().loadReport == CookieJar.LoadReport())
    }

    @Test("loading leaves the file as it was; the next write keeps only the valid cookies")
    func droppedCookiesLeaveWithTheNextWrite() throws {
        let planted = Self.cookie {
            $0.name = "planted"
            $0.domain = "com"
            $0.hostOnly = false
        }
        let (jar, directory) = try Self.load([Self.cookie { $0.name = "good" }, planted])
        defer { TestSupport.remove(directory) }
        let file = directory.appendingPathComponent("cookies.json")
        let before = try Data(contentsOf: file)
        jar.flush()
        #expect(try Data(contentsOf: file) == before)
        jar.store("new=1; Max-Age=600", from: "https://example.com/")
        jar.flush()
        let names = try JSONDecoder().decode(CookieJarFile.self, from: Data(contentsOf: file)).cookies.map(\.name)
        #expect(names == ["good", "new"])
    }
}
