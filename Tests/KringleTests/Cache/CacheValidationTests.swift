import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// End to end through a NetworkClient: a stub transport and a manual clock, nothing real.

@Suite("RFC 9111 §4.3 validation", .generousTimeLimit)
struct CacheValidationTests {
    private static let v1 = #""v1""#
    private static let v2 = #""v2""#

    /// A harness whose `/doc` was fetched once (`max-age=60` plus `cacheControl`,
    /// ETag v1, body `old`), and is `stale` seconds past its lifetime now.
    private static func stored(
        _ cacheControl: String = "", extra: HTTPHeaders = [:], stale: TimeInterval = 60
    ) async -> CacheHarness {
        let harness = CacheHarness()
        var headers: HTTPHeaders = ["Cache-Control": "max-age=60" + cacheControl, "ETag": v1]
        for field in extra { headers.add(name: field.name, value: field.value) }
        harness.respond("/doc", headers, body: "old")
        let first = await harness.send("/doc")
        #expect(first.cacheStatus == .network)
        harness.clock.advance(by: 60 + stale)
        return harness
    }

    @Test("§4.3.1 a stale response is revalidated with If-None-Match and If-Modified-Since; a 304 answers with it")
    func conditionalRequest() async throws {
        let lastModified = cacheIMFDate(after: -86_400)
        let harness = await Self.stored(extra: ["Last-Modified": lastModified])
        harness.respond("/doc", status: 304, ["ETag": Self.v1])
        let response = try await harness.send("/doc").get()
        let sent = harness.requests(to: "/doc")
        #expect(sent.count == 2)
        #expect(sent.first?.headers["If-None-Match"] == nil)
        #expect(sent.last?.headers["If-None-Match"] == Self.v1)
        #expect(sent.last?.headers["If-Modified-Since"] == lastModified)
        #expect(response.cacheStatus == .revalidated)
        #expect(response.statusCode == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "old")
        #expect(harness.cacheAnswers == ["200 GET /doc revalidated"])
    }

    @Test("§4.2 a fresh response is a hit: no request, its Age counted on the clock")
    func freshHit() async throws {
        let harness = await Self.stored(stale: -30)
        let response = try await harness.send("/doc").get()
        #expect(harness.stub.requests.count == 1)
        #expect(response.cacheStatus == .hit)
        #expect(response.headers["Age"] == "30")
        #expect(String(decoding: response.body, as: UTF8.self) == "old")
        #expect(harness.cacheAnswers == ["200 GET /doc hit"])
    }

    @Test("§3.2 a 304's fields replace the stored ones of their names; Content-Length and the rest are kept")
    func headerMerge() async throws {
        let harness = await Self.stored(extra: [
            "X-Version": "1", "Content-Type": "text/plain", "Content-Length": "3", "X-Kept": "yes",
        ])
        harness.respond(
            "/doc", status: 304,
            [
                "ETag": Self.v1, "Cache-Control": "max-age=600", "X-Version": "2", "Content-Length": "0",
                "X-New": "added", "Date": cacheIMFDate(after: 120),
            ])
        let response = try await harness.send("/doc").get()
        #expect(response.headers.values(for: "X-Version") == ["2"])
        #expect(response.headers.values(for: "Cache-Control") == ["max-age=600"])
        #expect(response.headers.values(for: "Content-Length") == ["3"])
        #expect(response.headers["Content-Type"] == "text/plain")
        #expect(response.headers["X-Kept"] == "yes")
        #expect(response.headers["X-New"] == "added")
        // The new max-age is the stored one's now.
        harness.clock.advance(by: 500)
        #expect(await harness.send("/doc").cacheStatus == .hit)
        #expect(harness.stub.requests.count == 2)
    }

    @Test(
        "§4.3.4 a 304 without Age or Date counts the stored response's age from the revalidation",
        arguments: [["Age": "50"], ["Date": cacheIMFDate(after: 0)]] as [HTTPHeaders])
    func revalidationRestartsAge(_ extra: HTTPHeaders) async {
        let harness = await Self.stored(extra: extra, stale: 20)
        harness.respond("/doc", status: 304, ["ETag": Self.v1])
        #expect(await harness.send("/doc").cacheStatus == .revalidated)
        harness.clock.advance(by: 30)
        let again = await harness.send("/doc")
        #expect(again.cacheStatus == .hit)
        #expect((try? again.get())?.headers["Age"] == "30")
        #expect(harness.stub.requests.count == 2)
    }

    @Test("§5.2.2.2 must-revalidate: a stale response is validated even when the request takes max-stale")
    func mustRevalidate() async {
        let harness = await Self.stored(", must-revalidate")
        harness.respond("/doc", status: 304, ["ETag": Self.v1])
        let outcome = await harness.send("/doc", headers: ["Cache-Control": "max-stale"])
        #expect(outcome.cacheStatus == .revalidated)
        #expect(harness.stub.requests.count == 2)
    }

    /// Where `stale-if-error` is given.
    enum Source: String, CaseIterable, Sendable {
        case response
        case request
    }

    /// How a revalidation fails.
    enum Failure: Sendable, CustomTestStringConvertible {
        case status(Int)
        case transport

        func stub(_ harness: CacheHarness) {
            switch self {
            case .status(let status): harness.respond("/doc", status: status, ["ETag": #""v9""#], body: "error")
            case .transport:
                harness.stub.stub(
                    .get, "/doc", with: .failure(KringleError.transport(URLError(.notConnectedToInternet))))
            }
        }

        var testDescription: String {
            switch self {
            case .status(let status): return "\(status)"
            case .transport: return "transport failure"
            }
        }
    }

    static let errorFailures: [Failure] = [.status(500), .status(502), .status(503), .status(504), .transport]

    @Test(
        "RFC 5861 §4 stale-if-error (response or request) serves the stale response when revalidation fails",
        arguments: Source.allCases, errorFailures)
    func staleIfError(_ source: Source, _ failure: Failure) async {
        let harness = await Self.stored(source == .response ? ", stale-if-error=600" : "")
        failure.stub(harness)
        let outcome = await harness.send(
            "/doc", headers: source == .request ? ["Cache-Control": "stale-if-error=600"] : [:])
        #expect(outcome.cacheStatus == .staleOnError)
        #expect(outcome.text == "old")
        #expect((try? outcome.get())?.statusCode == 200)
        #expect(harness.stub.requests.count == 2)
        #expect(harness.cacheAnswers == ["200 GET /doc stale on error"])
    }

    private static func expectFailure(
        _ outcome: Result<Response<Data>, any Error>, _ failure: Failure,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch failure {
        case .status(let status): #expect(outcome.rejectedStatus == status, sourceLocation: sourceLocation)
        case .transport: #expect(outcome.kringleError?.caseName == "transport", sourceLocation: sourceLocation)
        }
    }

    @Test(
        "§4.3.3 without stale-if-error the 5xx is the answer, and a transport error propagates",
        arguments: errorFailures)
    func noStaleIfError(_ failure: Failure) async {
        let harness = await Self.stored()
        failure.stub(harness)
        Self.expectFailure(await harness.send("/doc"), failure)
        #expect(harness.cacheAnswers.isEmpty)
    }

    @Test(
        "RFC 5861 §4 only 500, 502, 503 and 504 count as errors",
        arguments: [Failure.status(501), .status(505), .status(429), .status(404)])
    func otherStatusesAreAnswers(_ failure: Failure) async {
        let harness = await Self.stored(", stale-if-error=600")
        failure.stub(harness)
        Self.expectFailure(await harness.send("/doc"), failure)
    }

    @Test("§4.2.4 must-revalidate forbids stale-if-error", arguments: errorFailures)
    func mustRevalidateForbidsStaleIfError(_ failure: Failure) async {
        let harness = await Self.stored(", must-revalidate, stale-if-error=600")
        failure.stub(harness)
        Self.expectFailure(await harness.send("/doc"), failure)
    }

    @Test("RFC 5861 §4 stale-if-error allows that much staleness and no more", arguments: [(60.0, true), (61, false)])
    func staleIfErrorWindow(_ row: (stale: TimeInterval, served: Bool)) async {
        let harness = await Self.stored(", stale-if-error=60", stale: row.stale)
        Failure.status(503).stub(harness)
        let outcome = await harness.send("/doc")
        #expect(outcome.cacheStatus == (row.served ? .staleOnError : nil))
        #expect(outcome.rejectedStatus == (row.served ? nil : 503))
    }

    @Test(
        "RFC 5861 §4 a revalidation that times out serves the stale response only under stale-if-error",
        arguments: [(", stale-if-error=600", true), ("", false)])
    func timeout(_ row: (cacheControl: String, served: Bool)) async {
        let served = row.served
        let harness = await Self.stored(row.cacheControl)
        var slow = StubTransport.Stub(status: 304, headers: ["ETag": Self.v1])
        slow.delay = 120
        harness.stub.stub(.get, "/doc", with: slow)
        let call = harness.client.request(.get, CacheTestEndpoint(path: "/doc"), as: Data.self)
        await harness.clock.untilTimersPending(2)  // the stub's delay and the client's timeout
        harness.clock.advance(by: 60)
        let outcome = await call.outcome()
        #expect(outcome.cacheStatus == (served ? .staleOnError : nil))
        #expect(outcome.kringleError?.caseName == (served ? nil : "timedOut"))
    }

    @Test("§4.3.4 a 304 about another representation removes the stored one; the request goes unconditionally")
    func mismatchedNotModified() async {
        let harness = CacheHarness()
        let stub = harness.stub
        stub.stub(handler: { request in
            guard request.headers["If-None-Match"] == nil else {
                return StubTransport.Stub(status: 304, headers: ["ETag": Self.v2])
            }
            let first = stub.requests.count == 1
            return StubTransport.Stub(
                status: 200, headers: ["ETag": first ? Self.v1 : Self.v2, "Cache-Control": "max-age=60"],
                body: Data((first ? "old" : "new").utf8))
        })
        #expect(await harness.send("/doc").text == "old")
        harness.clock.advance(by: 120)
        let outcome = await harness.send("/doc")
        #expect(outcome.text == "new")
        #expect(outcome.cacheStatus == .network)
        let sent = stub.requests.map { $0.headers["If-None-Match"] }
        #expect(sent == [nil, Self.v1, nil])
        let again = await harness.send("/doc")
        #expect(again.cacheStatus == .hit)
        #expect(again.text == "new")
    }

    @Test("§4.3.5 a HEAD response with the same validator updates the stored GET response's fields")
    func headFreshens() async throws {
        let harness = await Self.stored(extra: ["X-Version": "1"])
        harness.respond("/doc", method: .head, ["ETag": Self.v1, "Cache-Control": "max-age=600", "X-Version": "2"])
        #expect(await harness.send("/doc", method: .head).cacheStatus == .network)
        let response = try await harness.send("/doc").get()
        #expect(response.cacheStatus == .hit)
        #expect(response.headers["X-Version"] == "2")
        #expect(String(decoding: response.body, as: UTF8.self) == "old")
        #expect(harness.requests(to: "/doc").count == 1)
    }

    @Test("§4.3.5 a HEAD response with another validator, or an error, leaves the stored response alone")
    func headOtherValidator() async {
        for (status, etag) in [(200, Self.v2), (404, Self.v1)] {
            let harness = await Self.stored()
            harness.respond("/doc", method: .head, status: status, ["ETag": etag, "Cache-Control": "max-age=600"])
            _ = await harness.send("/doc", method: .head)
            harness.respond("/doc", status: 304, ["ETag": Self.v1])
            #expect(await harness.send("/doc").cacheStatus == .revalidated, "\(status) \(etag)")
        }
    }

    @Test(
        "§4.3.5 a HEAD response that does not match a fresh stored response makes it stale",
        arguments: [["ETag": v2], ["ETag": v1, "Content-Length": "999"]] as [HTTPHeaders])
    func headMismatchStales(_ head: HTTPHeaders) async {
        let harness = await Self.stored(extra: ["Content-Length": "3"], stale: -30)
        harness.respond("/doc", method: .head, head)
        _ = await harness.send("/doc", method: .head)
        harness.respond("/doc", status: 304, ["ETag": Self.v1])
        let status = await harness.send("/doc").cacheStatus
        #expect(status != .hit)
    }

    @Test("§4.3.3 a full response to a revalidation replaces the stored one")
    func fullResponseReplaces() async {
        let harness = await Self.stored()
        harness.respond("/doc", ["ETag": Self.v2, "Cache-Control": "max-age=60"], body: "new")
        let outcome = await harness.send("/doc")
        #expect(outcome.cacheStatus == .network)
        #expect(outcome.text == "new")
        let again = await harness.send("/doc")
        #expect(again.cacheStatus == .hit)
        #expect(again.text == "new")
        #expect(harness.cache.storage.responses(forKey: HTTPCache.key(for: cacheURL("/doc"))).count == 1)
    }

    @Test("the Set-Cookie of a stored response reaches the jar once and is not stored; a 304's own reaches it")
    func setCookieNotStoredAgain() async {
        let harness = await Self.stored(extra: ["Set-Cookie": "visit=1; Max-Age=86400"], stale: -30)
        #expect(harness.jar.allCookies.map(\.name) == ["visit"])
        harness.jar.removeAll()
        let hit = await harness.send("/doc")
        #expect(hit.cacheStatus == .hit)
        #expect((try? hit.get())?.headers["Set-Cookie"] == nil)
        #expect(
            harness.cache.storage.responses(forKey: HTTPCache.key(for: cacheURL("/doc"))).first?.headers["Set-Cookie"]
                == nil)
        #expect(harness.jar.allCookies.isEmpty)

        harness.clock.advance(by: 60)
        harness.respond("/doc", status: 304, ["ETag": Self.v1, "Set-Cookie": "seen=2; Max-Age=86400"])
        #expect(await harness.send("/doc").cacheStatus == .revalidated)
        #expect(harness.jar.allCookies.map(\.name) == ["seen"])
    }

    @Test(
        "§4.3.2 the answer to the caller's own conditional or range request leaves the stored response in place",
        arguments: [(["If-None-Match": v1], 304), (["Range": "bytes=0-1"], 206)])
    func callersConditionalRequest(_ row: (headers: [String: String], status: Int)) async {
        let (headers, status) = row
        let harness = await Self.stored(stale: -30)
        harness.respond("/doc", status: status, ["ETag": Self.v1], body: status == 206 ? "ol" : "")
        let outcome = await harness.send("/doc", headers: headers)
        #expect(outcome.cacheStatus == (status == 206 ? .network : nil))
        #expect(outcome.rejectedStatus == (status == 304 ? 304 : nil))
        #expect(harness.cache.storage.responses(forKey: HTTPCache.key(for: cacheURL("/doc"))).count == 1)
    }
}
