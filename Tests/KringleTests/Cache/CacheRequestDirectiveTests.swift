import Foundation
import Kringle
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The stored response of these tests arrived at `cacheEpoch` with `max-age=100` and no Age:
// at `cacheEpoch + n` it is n seconds old, fresh below 100 and stale from 100 on.

@Suite("RFC 9111 §5.2.1 request directives")
struct CacheRequestDirectiveTests {
    private static let validators: HTTPHeaders = [
        "ETag": #""v1""#, "Last-Modified": "Mon, 13 Nov 2023 22:13:20 GMT",
    ]

    private static func stored(_ cacheControl: String = "max-age=100") -> CachedResponse {
        var headers = validators
        headers.add(name: "Date", value: cacheIMFDate(after: 0))
        headers.add(name: "Cache-Control", value: cacheControl)
        return cacheStored(headers, body: "stored")
    }

    private static func mayAnswer(
        _ requestHeaders: [String: String], age: TimeInterval, stored: CachedResponse = stored()
    ) -> Bool {
        let request = cacheRequest(headers: requestHeaders)
        return HTTPCache.mayAnswer(
            request, directives: CacheStorability.requestDirectives(request), with: stored,
            at: cacheEpoch.addingTimeInterval(age))
    }

    /// A request's `Cache-Control`, the stored response's age, and whether it may answer.
    struct Directive: Sendable, CustomTestStringConvertible {
        let cacheControl: String?
        let age: TimeInterval
        let answers: Bool

        init(_ cacheControl: String?, age: TimeInterval, _ answers: Bool) {
            self.cacheControl = cacheControl
            self.age = age
            self.answers = answers
        }

        var testDescription: String { "\(cacheControl ?? "(none)") at age \(age)" }
    }

    static let directives: [Directive] = [
        Directive(nil, age: 50, true),
        Directive(nil, age: 99, true),
        Directive(nil, age: 100, false),
        Directive("no-cache", age: 0, false),
        Directive("No-Cache", age: 50, false),
        Directive("max-age=30", age: 30, true),
        Directive("max-age=30", age: 31, false),
        Directive("MAX-AGE=30", age: 31, false),
        Directive("max-age=0", age: 1, false),
        Directive("max-age=200", age: 150, false),
        Directive("max-age=junk", age: 1, false),
        Directive("max-stale", age: 150, true),
        Directive("max-stale", age: 1_000_000, true),
        Directive("max-stale=60", age: 150, true),
        Directive("max-stale=60", age: 160, true),
        Directive("max-stale=60", age: 161, false),
        Directive(#"max-stale="60""#, age: 161, false),
        Directive("max-stale=junk", age: 101, false),
        Directive("max-stale, max-age=120", age: 121, false),
        Directive("min-fresh=30", age: 60, true),
        Directive("min-fresh=30", age: 70, true),
        Directive("min-fresh=30", age: 71, false),
        Directive("min-fresh=30, max-stale", age: 150, false),
        Directive("only-if-cached", age: 50, true),
        Directive("only-if-cached", age: 150, false),
        Directive("no-store", age: 50, true),
    ]

    @Test(
        "§5.2.1 no-cache, max-age, max-stale and min-fresh decide whether a stored response answers",
        arguments: directives)
    func directive(_ directive: Directive) {
        let headers = directive.cacheControl.map { ["Cache-Control": $0] } ?? [:]
        #expect(Self.mayAnswer(headers, age: directive.age) == directive.answers)
    }

    @Test("§5.2.2.2 must-revalidate beats max-stale once stale, not while fresh")
    func mustRevalidate() {
        let stored = Self.stored("max-age=100, must-revalidate")
        #expect(!Self.mayAnswer(["Cache-Control": "max-stale"], age: 150, stored: stored))
        #expect(!Self.mayAnswer(["Cache-Control": "max-stale=3600"], age: 101, stored: stored))
        #expect(Self.mayAnswer(["Cache-Control": "max-stale"], age: 50, stored: stored))
        #expect(Self.mayAnswer(["Cache-Control": "max-stale"], age: 150))
    }

    @Test("§5.2.2.4 a response's no-cache always validates, even fresh, even with max-stale")
    func responseNoCache() {
        for cacheControl in ["max-age=100, no-cache", #"max-age=100, no-cache="Set-Cookie""#] {
            #expect(!Self.mayAnswer([:], age: 0, stored: Self.stored(cacheControl)))
            #expect(!Self.mayAnswer(["Cache-Control": "max-stale"], age: 0, stored: Self.stored(cacheControl)))
        }
    }

    @Test("§5.4 Pragma: no-cache counts as no-cache without a Cache-Control, and is ignored with one")
    func pragma() {
        #expect(!Self.mayAnswer(["Pragma": "no-cache"], age: 0))
        #expect(!Self.mayAnswer(["Pragma": "No-Cache"], age: 0))
        #expect(Self.mayAnswer(["Pragma": "no-cache", "Cache-Control": "max-stale"], age: 0))
        #expect(Self.mayAnswer(["Pragma": "x-other"], age: 0))
        #expect(CacheStorability.requestDirectives(cacheRequest(headers: ["Pragma": "no-cache"])).contains("no-cache"))
    }

    // MARK: - lookup

    enum Stored: String, CaseIterable, Sendable {
        case none
        case fresh
        case stale
    }

    /// A cache holding the stored response, or nothing, and the instant it is fresh or stale at.
    private static func cache(_ stored: Stored) -> (HTTPCache, Date) {
        let cache = HTTPCache.memory()
        if stored != .none {
            let entry = Self.stored()
            let response = HTTPResponse(
                statusCode: 200, headers: entry.headers, body: entry.body, url: cacheURL("/doc"))
            cache.store(response, for: cacheRequest(), requestDate: cacheEpoch, responseDate: cacheEpoch)
        }
        return (cache, cacheEpoch.addingTimeInterval(stored == .stale ? 150 : 50))
    }

    private static func lookup(
        _ stored: Stored, policy: CachePolicy = .useProtocol, headers: [String: String] = [:]
    ) -> String {
        let (cache, now) = cache(stored)
        switch cache.lookup(cacheRequest(headers: headers), policy: policy, now: now) {
        case .answer(let response): return "answer " + String(decoding: response.body, as: UTF8.self)
        case .validate: return "validate"
        case .load: return "load"
        case .unavailable: return "unavailable"
        }
    }

    static let policies: [(CachePolicy, Stored, String)] = [
        (.useProtocol, .none, "load"), (.useProtocol, .fresh, "answer stored"), (.useProtocol, .stale, "validate"),
        (.reload, .none, "load"), (.reload, .fresh, "load"), (.reload, .stale, "load"),
        (.returnCacheElseLoad, .none, "load"), (.returnCacheElseLoad, .fresh, "answer stored"),
        (.returnCacheElseLoad, .stale, "answer stored"),
        (.cacheOnly, .none, "unavailable"), (.cacheOnly, .fresh, "answer stored"),
        (.cacheOnly, .stale, "answer stored"),
    ]

    @Test("the four cache policies, with nothing stored, a fresh and a stale response", arguments: policies)
    func policy(_ policy: CachePolicy, _ stored: Stored, _ expected: String) {
        #expect(Self.lookup(stored, policy: policy) == expected)
    }

    @Test(
        "§5.2.1.7 only-if-cached takes a response that may answer, or nothing; it never validates",
        arguments: [(Stored.none, "unavailable"), (.fresh, "answer stored"), (.stale, "unavailable")])
    func onlyIfCached(_ stored: Stored, _ expected: String) {
        #expect(Self.lookup(stored, headers: ["Cache-Control": "only-if-cached"]) == expected)
        #expect(Self.lookup(stored, headers: ["Cache-Control": "ONLY-IF-CACHED, max-stale=1"]) == expected)
    }

    @Test(
        "§5.2.1 request directives turn a lookup into a validation",
        arguments: [
            ["Cache-Control": "no-cache"], ["Cache-Control": "max-age=0"], ["Cache-Control": "min-fresh=60"],
            ["Pragma": "no-cache"],
        ])
    func directivesValidate(_ headers: [String: String]) {
        #expect(Self.lookup(.fresh, headers: headers) == "validate")
    }

    @Test("§4.2.4 max-stale lets a stale response answer a lookup")
    func maxStaleAnswers() {
        #expect(Self.lookup(.stale, headers: ["Cache-Control": "max-stale"]) == "answer stored")
    }

    @Test("§4.3.1 a validation carries the stored validators on the request")
    func validationRequest() throws {
        let (cache, now) = Self.cache(.stale)
        let request = cacheRequest(headers: ["Accept": "text/plain"])
        guard case .validate(let stored, let conditional) = cache.lookup(request, policy: .useProtocol, now: now) else {
            Issue.record("expected a validation")
            return
        }
        #expect(String(decoding: stored.body, as: UTF8.self) == "stored")
        #expect(conditional.headers["If-None-Match"] == #""v1""#)
        #expect(conditional.headers["If-Modified-Since"] == "Mon, 13 Nov 2023 22:13:20 GMT")
        #expect(conditional.headers["Accept"] == "text/plain")
        #expect(conditional.url == request.url)
    }

    @Test(
        "§4.3.1 a request that is conditional or partial already goes to the network as it is",
        arguments: ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"])
    func callerValidates(_ name: String) {
        #expect(Self.lookup(.fresh, headers: [name: "x"]) == "load")
        #expect(Self.lookup(.fresh, headers: [name: "x", "Cache-Control": "only-if-cached"]) == "unavailable")
    }

    @Test("§4 only GET is looked up", arguments: ["HEAD", "POST", "PUT", "DELETE", "OPTIONS"])
    func onlyGet(_ method: String) {
        let (cache, now) = Self.cache(.fresh)
        #expect(cache.lookup(cacheRequest(method: method), policy: .cacheOnly, now: now) == .load)
    }
}
