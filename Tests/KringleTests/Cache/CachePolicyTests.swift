import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Cache policies, logging and cached redirects", .generousTimeLimit)
struct CachePolicyTests {
    private static let v1 = #""v1""#

    /// A harness whose `/doc` was fetched once (`max-age=60`, ETag v1, body
    /// `old`), then `age` seconds pass; the network now answers `/doc` with `new` (ETag v2).
    private static func stored(age: TimeInterval) async -> CacheHarness {
        let harness = CacheHarness()
        harness.respond("/doc", ["Cache-Control": "max-age=60", "ETag": v1], body: "old")
        #expect(await harness.send("/doc").cacheStatus == .network)
        harness.clock.advance(by: age)
        harness.respond("/doc", ["Cache-Control": "max-age=60", "ETag": #""v2""#], body: "new")
        return harness
    }

    @Test(".reload asks the network without validators, fresh entry or not, and stores the answer")
    func reload() async {
        let harness = await Self.stored(age: 10)
        let outcome = await harness.send("/doc", policy: .reload)
        #expect(outcome.cacheStatus == .network)
        #expect(outcome.text == "new")
        #expect(harness.stub.requests.last?.headers["If-None-Match"] == nil)
        let next = await harness.send("/doc")
        #expect(next.cacheStatus == .hit)
        #expect(next.text == "new")
        #expect(harness.stub.requests.count == 2)
    }

    @Test(".returnCacheElseLoad answers with a stale entry as a hit; without one it loads and stores")
    func returnCacheElseLoad() async {
        let harness = await Self.stored(age: 10_000)
        let stale = await harness.send("/doc", policy: .returnCacheElseLoad)
        #expect(stale.cacheStatus == .hit)
        #expect(stale.text == "old")
        #expect((try? stale.get())?.headers["Age"] == "10000")
        #expect(harness.stub.requests.count == 1)

        harness.respond("/missing", ["Cache-Control": "max-age=60"], body: "loaded")
        #expect(await harness.send("/missing", policy: .returnCacheElseLoad).cacheStatus == .network)
        #expect(await harness.send("/missing").cacheStatus == .hit)
        #expect(harness.requests(to: "/missing").count == 1)
    }

    @Test(".cacheOnly answers with any stored entry, or fails with notCached without a request")
    func cacheOnly() async {
        let harness = await Self.stored(age: 10_000)
        let stale = await harness.send("/doc", policy: .cacheOnly)
        #expect(stale.cacheStatus == .hit)
        #expect(stale.text == "old")

        harness.respond("/missing", body: "never asked")
        let missing = await harness.send("/missing", policy: .cacheOnly)
        guard case .notCached(let url)? = missing.kringleError else {
            Issue.record("expected notCached, got \(missing)")
            return
        }
        #expect(url == cacheURL("/missing"))
        #expect(harness.requests(to: "/missing").isEmpty)
        #expect(harness.stub.requests.count == 1)
    }

    @Test("§5.2.1.7 only-if-cached through the client: a fresh entry, or notCached without a request")
    func onlyIfCached() async {
        let fresh = await Self.stored(age: 10)
        #expect(await fresh.send("/doc", headers: ["Cache-Control": "only-if-cached"]).cacheStatus == .hit)
        let stale = await Self.stored(age: 100)
        #expect(
            await stale.send("/doc", headers: ["Cache-Control": "only-if-cached"]).kringleError?.caseName == "notCached"
        )
        #expect(stale.stub.requests.count == 1)
    }

    @Test(
        "the call's cachePolicy overrides the endpoint's; without one the endpoint's applies",
        arguments: [
            (CachePolicy.cacheOnly, CachePolicy?.some(.reload), "new network"),
            (.returnCacheElseLoad, nil, "old hit"),
            (.returnCacheElseLoad, .useProtocol, "new network"),
            (.reload, .returnCacheElseLoad, "old hit"),
            (.reload, nil, "new network"),
            (.useProtocol, .cacheOnly, "old hit"),
        ])
    func perCallPolicy(
        policies: (endpoint: CachePolicy, call: CachePolicy?, expected: String)
    ) async {
        let harness = await Self.stored(age: 100)
        let endpoint = CacheTestEndpoint(path: "/doc", cachePolicy: policies.endpoint)
        let outcome = await harness.send(endpoint, policy: policies.call)
        #expect("\(outcome.text ?? "-") \(outcome.cacheStatus.map { "\($0)" } ?? "-")" == policies.expected)
    }

    @Test("an endpoint's .cacheOnly fails with notCached unless the call overrides it")
    func endpointCacheOnly() async {
        let harness = CacheHarness()
        harness.respond("/doc", ["Cache-Control": "max-age=60"], body: "body")
        let endpoint = CacheTestEndpoint(path: "/doc", cachePolicy: .cacheOnly)
        #expect(await harness.send(endpoint).kringleError?.caseName == "notCached")
        #expect(harness.stub.requests.isEmpty)
        #expect(await harness.send(endpoint, policy: .useProtocol).cacheStatus == .network)
        #expect(await harness.send(endpoint).cacheStatus == .hit)
    }

    @Test("an answer from the cache is logged as cacheAnswered, and sends nothing")
    func logging() async {
        let harness = await Self.stored(age: 10)
        let sentBefore = harness.log.sent.count
        #expect(await harness.send("/doc").cacheStatus == .hit)
        #expect(harness.log.sent.count == sentBefore)
        let answered = harness.log.events.filter {
            if case .cacheAnswered = $0 { return true }
            return false
        }
        #expect(answered.map(\.description) == ["⊙ 200 GET https://cache.example/doc (cache: hit)"])

        harness.clock.advance(by: 100)
        harness.respond("/doc", status: 304, ["ETag": Self.v1])
        #expect(await harness.send("/doc").cacheStatus == .revalidated)
        #expect(harness.cacheAnswers == ["200 GET /doc hit", "200 GET /doc revalidated"])
        // The 304 itself was an exchange, and is logged as one.
        #expect(harness.log.received.map(\.statusCode) == [200, 304])
    }

    @Test("§4 a cached 301 is followed without the network, each hop answered by the cache")
    func cachedRedirect() async throws {
        let harness = CacheHarness()
        harness.respond("/old", status: 301, ["Location": "/new", "Cache-Control": "max-age=3600"])
        harness.respond("/new", ["Cache-Control": "max-age=60"], body: "moved")
        let first = try await harness.send("/old").get()
        #expect(first.url == cacheURL("/new"))
        #expect(first.cacheStatus == .network)

        harness.clock.advance(by: 30)
        let second = try await harness.send("/old").get()
        #expect(second.url == cacheURL("/new"))
        #expect(String(decoding: second.body, as: UTF8.self) == "moved")
        #expect(second.cacheStatus == .hit)
        #expect(harness.stub.requests.count == 2)
        #expect(harness.cacheAnswers == ["301 GET /old hit", "200 GET /new hit"])
    }

    @Test("§3 a 302 without explicit freshness is not stored: only its target answers from the cache")
    func uncachedRedirect() async throws {
        let harness = CacheHarness()
        harness.respond("/old", status: 302, ["Location": "/new"])
        harness.respond("/new", ["Cache-Control": "max-age=60"], body: "moved")
        _ = try await harness.send("/old").get()
        let second = try await harness.send("/old").get()
        #expect(second.cacheStatus == .hit)
        #expect(harness.requests(to: "/old").count == 2)
        #expect(harness.requests(to: "/new").count == 1)
        #expect(harness.cacheAnswers == ["200 GET /new hit"])
    }
}
