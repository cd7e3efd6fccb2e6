import Foundation
import Kringle
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Every stored response here has a fixed request and response time, and every age is taken
// at a fixed instant: seconds after `cacheEpoch`.

@Suite("RFC 9111 §4.2 freshness")
struct CacheFreshnessTests {
    /// A stored response's header fields and the freshness_lifetime they give.
    struct Lifetime: Sendable, CustomTestStringConvertible {
        let label: String
        var status = 200
        let headers: HTTPHeaders
        let seconds: TimeInterval

        var testDescription: String { label }
    }

    private static let date = ("Date", cacheIMFDate(after: 0))

    // MARK: - §4.2.1 explicit lifetime

    static let explicitLifetimes: [Lifetime] = [
        Lifetime(label: "max-age", headers: ["Cache-Control": "max-age=60"], seconds: 60),
        Lifetime(
            label: "max-age over Expires",
            headers: HTTPHeaders([date, ("Expires", cacheIMFDate(after: 3600)), ("Cache-Control", "max-age=60")]),
            seconds: 60),
        Lifetime(
            label: "max-age=0 over a later Expires",
            headers: HTTPHeaders([date, ("Expires", cacheIMFDate(after: 3600)), ("Cache-Control", "max-age=0")]),
            seconds: 0),
        Lifetime(
            label: "Expires minus Date",
            headers: HTTPHeaders([("Date", cacheIMFDate(after: -100)), ("Expires", cacheIMFDate(after: 200))]),
            seconds: 300),
        Lifetime(
            label: "Expires before Date", headers: HTTPHeaders([date, ("Expires", cacheIMFDate(after: -10))]),
            seconds: 0),
        Lifetime(
            label: "Expires without Date counts from arrival",
            headers: ["Expires": cacheIMFDate(after: 90)], seconds: 90),
        Lifetime(
            label: "Expires in the obsolete RFC 850 form",
            headers: HTTPHeaders([
                ("Date", "Sun, 06 Nov 1994 08:49:37 GMT"), ("Expires", "Sunday, 06-Nov-94 09:49:37 GMT"),
            ]),
            seconds: 3600),
        Lifetime(
            label: "Expires in the obsolete asctime form",
            headers: HTTPHeaders([("Date", "Sun, 06 Nov 1994 08:49:37 GMT"), ("Expires", "Sun Nov  6 09:49:37 1994")]),
            seconds: 3600),
        Lifetime(label: "invalid max-age is stale", headers: ["Cache-Control": "max-age=soon"], seconds: 0),
        Lifetime(
            label: "the first max-age counts",
            headers: HTTPHeaders([("Cache-Control", "max-age=30"), ("Cache-Control", "max-age=3000")]), seconds: 30),
        Lifetime(label: "s-maxage alone is for shared caches", headers: ["Cache-Control": "s-maxage=600"], seconds: 0),
        Lifetime(
            label: "s-maxage does not beat max-age", headers: ["Cache-Control": "s-maxage=600, max-age=10"],
            seconds: 10),
        Lifetime(
            label: "s-maxage does not beat Expires",
            headers: HTTPHeaders([date, ("Expires", cacheIMFDate(after: 20)), ("Cache-Control", "s-maxage=600")]),
            seconds: 20),
        Lifetime(label: "nothing at all", headers: [:], seconds: 0),
    ]

    @Test("§4.2.1 freshness_lifetime: max-age, else Expires minus Date; s-maxage ignored", arguments: explicitLifetimes)
    func explicitLifetime(_ lifetime: Lifetime) {
        #expect(cacheStored(status: lifetime.status, lifetime.headers).freshnessLifetime == lifetime.seconds)
    }

    @Test(
        "§5.3 an invalid Expires means already expired, and no heuristic applies",
        arguments: ["0", "-1", "never", "", "Tue, 14 Nov 2023 22:13:20", "Tue, 32 Nov 2023 22:13:20 GMT"])
    func invalidExpires(_ expires: String) {
        let stored = cacheStored(
            HTTPHeaders([Self.date, ("Expires", expires), ("Last-Modified", cacheIMFDate(after: -86_400 * 5))]))
        #expect(stored.freshnessLifetime == 0)
        #expect(!stored.isFresh(at: cacheEpoch))
    }

    // MARK: - §4.2.2 heuristic lifetime

    private static func lastModified(_ secondsBefore: TimeInterval, _ extra: [(String, String)] = []) -> HTTPHeaders {
        HTTPHeaders([date, ("Last-Modified", cacheIMFDate(after: -secondsBefore))] + extra)
    }

    private static let hour: TimeInterval = 3600
    private static let day: TimeInterval = 86_400

    static let heuristicLifetimes: [Lifetime] = [
        Lifetime(label: "10% of 10 hours", headers: lastModified(10 * hour), seconds: hour),
        Lifetime(label: "10% of 5 days", headers: lastModified(5 * day), seconds: 12 * hour),
        Lifetime(label: "10% of 10 days is the 24 h cap", headers: lastModified(10 * day), seconds: day),
        Lifetime(label: "10% of a year capped at 24 h", headers: lastModified(365 * day), seconds: day),
        Lifetime(label: "404 is heuristically cacheable", status: 404, headers: lastModified(10 * hour), seconds: hour),
        Lifetime(label: "301 is heuristically cacheable", status: 301, headers: lastModified(10 * hour), seconds: hour),
        Lifetime(label: "302 is not", status: 302, headers: lastModified(10 * hour), seconds: 0),
        Lifetime(label: "500 is not", status: 500, headers: lastModified(10 * hour), seconds: 0),
        Lifetime(
            label: "302 marked public", status: 302, headers: lastModified(10 * hour, [("Cache-Control", "public")]),
            seconds: hour),
        Lifetime(
            label: "500 marked public", status: 500, headers: lastModified(10 * hour, [("Cache-Control", "public")]),
            seconds: hour),
        Lifetime(
            label: "no heuristic over max-age", headers: lastModified(10 * day, [("Cache-Control", "max-age=5")]),
            seconds: 5),
        Lifetime(
            label: "no heuristic over Expires", headers: lastModified(10 * day, [("Expires", cacheIMFDate(after: 7))]),
            seconds: 7),
        Lifetime(label: "Last-Modified after Date", headers: lastModified(-hour), seconds: 0),
        Lifetime(label: "Last-Modified equal to Date", headers: lastModified(0), seconds: 0),
        Lifetime(
            label: "invalid Last-Modified", headers: HTTPHeaders([date, ("Last-Modified", "yesterday")]), seconds: 0),
        Lifetime(
            label: "without Date, from arrival", headers: ["Last-Modified": cacheIMFDate(after: -10 * hour)],
            seconds: hour),
    ]

    @Test("§4.2.2 heuristic lifetime: 10% of Date minus Last-Modified, at most 24 h", arguments: heuristicLifetimes)
    func heuristicLifetime(_ lifetime: Lifetime) {
        #expect(cacheStored(status: lifetime.status, lifetime.headers).freshnessLifetime == lifetime.seconds)
    }

    // MARK: - §4.2.3 age

    /// A stored response's `Date` and `Age`, and its current_age at an instant; the request
    /// was sent at 0 and its response arrived at 2 (a response delay of 2 s).
    struct Age: Sendable, CustomTestStringConvertible {
        let label: String
        let date: TimeInterval?
        var age: String?
        var now: TimeInterval = 2
        let expected: TimeInterval

        var testDescription: String { label }
    }

    static let ages: [Age] = [
        Age(label: "just arrived: the response delay", date: 2, expected: 2),
        Age(label: "Date at the request: the response delay", date: 0, expected: 2),
        Age(label: "no Date: the response delay", date: nil, expected: 2),
        Age(label: "Age plus the response delay", date: 2, age: "100", expected: 102),
        Age(label: "apparent age beats a smaller corrected Age", date: -50, age: "10", expected: 52),
        Age(label: "corrected Age beats a smaller apparent age", date: -50, age: "100", expected: 102),
        Age(label: "apparent age alone", date: -50, expected: 52),
        Age(label: "a Date in the future gives no apparent age", date: 30, expected: 2),
        Age(label: "resident time added", date: 2, now: 62, expected: 62),
        Age(label: "all of it", date: -50, age: "100", now: 3602, expected: 3702),
        Age(label: "an instant before arrival adds nothing", date: 2, now: 1, expected: 2),
        Age(label: "an invalid Age counts as 0", date: 2, age: "ten", expected: 2),
        Age(label: "a negative Age counts as 0", date: 2, age: "-60", expected: 2),
        Age(label: "a huge Age is 2^31", date: 2, age: "99999999999999999999", expected: 2_147_483_650),
    ]

    @Test(
        "§4.2.3 current_age adds the response delay and the resident time to the larger of apparent and Age",
        arguments: ages)
    func currentAge(_ example: Age) {
        var headers = HTTPHeaders()
        if let date = example.date { headers.add(name: "Date", value: cacheIMFDate(after: date)) }
        if let age = example.age { headers.add(name: "Age", value: age) }
        let stored = cacheStored(headers, requested: 0, received: 2)
        #expect(stored.currentAge(at: cacheEpoch.addingTimeInterval(example.now)) == example.expected)
    }

    @Test("§4.2.3 date_value is Date, or the arrival time without a valid one")
    func dateValue() {
        #expect(cacheStored(["Date": cacheIMFDate(after: -30)], received: 5).dateValue == cacheEpoch - 30)
        #expect(cacheStored([:], received: 5).dateValue == cacheEpoch + 5)
        #expect(cacheStored(["Date": "not a date"], received: 5).dateValue == cacheEpoch + 5)
    }

    @Test(
        "§4.2 fresh while freshness_lifetime > current_age, stale from the instant they are equal",
        arguments: [(0.0, true), (59, true), (59.999, true), (60, false), (61, false), (86_400, false)])
    func freshUntilLifetime(_ seconds: TimeInterval, _ fresh: Bool) {
        let stored = cacheStored(["Date": cacheIMFDate(after: 0), "Cache-Control": "max-age=60"])
        #expect(stored.isFresh(at: cacheEpoch.addingTimeInterval(seconds)) == fresh)
    }

    @Test("§4.2 an Age from an upstream cache uses up part of the lifetime")
    func ageShortensFreshness() {
        let stored = cacheStored(["Date": cacheIMFDate(after: 0), "Cache-Control": "max-age=60", "Age": "50"])
        #expect(stored.isFresh(at: cacheEpoch + 9))
        #expect(!stored.isFresh(at: cacheEpoch + 10))
    }
}
