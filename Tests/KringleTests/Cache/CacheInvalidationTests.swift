import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("RFC 9111 §4.4 invalidation", .generousTimeLimit)
struct CacheInvalidationTests {
    private static let cats = CacheTestEndpoint(path: "/cats")

    /// Whether a GET to `endpoint` is answered from the cache now (one GET of its path went
    /// to the network before, when it was primed).
    private static func isHit(_ endpoint: CacheTestEndpoint, in harness: CacheHarness) async -> Bool {
        await harness.send(endpoint).cacheStatus == .hit
    }

    static let unsafeVerbs: [HTTPMethod] = [.post, .put, .patch, .delete, "PURGE"]

    @Test(
        "§4.4 a 2xx or 3xx to an unsafe method invalidates the target URI; the next GET goes to the network",
        arguments: unsafeVerbs, [200, 201, 204, 300])
    func invalidatesTarget(_ method: HTTPMethod, _ status: Int) async {
        let harness = CacheHarness()
        await harness.prime([Self.cats])
        harness.respond("/cats", method: method, status: status)
        _ = await harness.send("/cats", method: method)
        #expect(!(await Self.isHit(Self.cats, in: harness)))
        #expect(harness.requests(to: "/cats").count == 2)
        // What the network said then is stored again.
        #expect(await Self.isHit(Self.cats, in: harness))
    }

    @Test(
        "§4.4 an error response to an unsafe method invalidates nothing",
        arguments: [HTTPMethod.post, .delete], [400, 403, 404, 409, 500, 503])
    func errorKeeps(_ method: HTTPMethod, _ status: Int) async {
        let harness = CacheHarness()
        await harness.prime([Self.cats])
        harness.respond("/cats", method: method, status: status)
        #expect(await harness.send("/cats", method: method).rejectedStatus == status)
        #expect(await Self.isHit(Self.cats, in: harness))
        #expect(harness.requests(to: "/cats").count == 1)
    }

    @Test("§4.4 an unsafe request that gets no response invalidates nothing")
    func transportFailureKeeps() async {
        let harness = CacheHarness()
        await harness.prime([Self.cats])
        harness.stub.stub(.post, "/cats", with: .failure(KringleError.transport(URLError(.networkConnectionLost))))
        #expect(await harness.send("/cats", method: .post).kringleError?.caseName == "transport")
        #expect(await Self.isHit(Self.cats, in: harness))
    }

    @Test("§4.4 safe methods invalidate nothing", arguments: [HTTPMethod.head, .options])
    func safeMethodsKeep(_ method: HTTPMethod) async {
        let harness = CacheHarness()
        await harness.prime([Self.cats])
        harness.respond("/cats", method: method)
        #expect(await harness.send("/cats", method: method).cacheStatus == .network)
        #expect(await Self.isHit(Self.cats, in: harness))
    }

    @Test("§4.4 the same-origin Location and Content-Location are invalidated too, and nothing else")
    func locationAndContentLocation() async {
        let harness = CacheHarness()
        let tom = CacheTestEndpoint(path: "/cats/tom")
        let felix = CacheTestEndpoint(path: "/cats/felix")
        let dogs = CacheTestEndpoint(path: "/dogs")
        let secondPage = CacheTestEndpoint(path: "/cats", queryItems: [URLQueryItem(name: "page", value: "2")])
        await harness.prime([Self.cats, tom, felix, dogs])
        harness.respond("/cats", ["Cache-Control": "max-age=600"], body: "page 2")
        #expect(await harness.send(secondPage).cacheStatus == .network)
        harness.respond(
            "/cats", method: .post, status: 201,
            ["Location": "/cats/tom", "Content-Location": "https://cache.example/cats/felix"])
        _ = await harness.send("/cats", method: .post)

        #expect(!(await Self.isHit(Self.cats, in: harness)))
        #expect(!(await Self.isHit(tom, in: harness)))
        #expect(!(await Self.isHit(felix, in: harness)))
        #expect(await Self.isHit(dogs, in: harness))
        #expect(await Self.isHit(secondPage, in: harness))
    }

    @Test(
        "§4.4 a Location or Content-Location on another origin is not invalidated",
        arguments: [
            "https://other.example/elsewhere", "http://cache.example/elsewhere", "https://cache.example:8443/elsewhere",
        ])
    func otherOrigin(_ location: String) async {
        let harness = CacheHarness()
        let url = URL(string: location)!
        let elsewhere = CacheTestEndpoint(
            baseURL: URL(string: "\(url.scheme!)://\(url.host!)" + (url.port.map { ":\($0)" } ?? ""))!,
            path: "/elsewhere")
        await harness.prime([elsewhere])
        for name in ["Location", "Content-Location"] {
            harness.respond("/cats", method: .put, status: 204, [name: location])
            _ = await harness.send("/cats", method: .put)
            #expect(await Self.isHit(elsewhere, in: harness), "\(name)")
        }
        #expect(harness.requests(to: "/elsewhere").count == 1)
    }

    @Test("§4.4 a Location that differs only in the case of scheme and host or a default port invalidates the entry")
    func normalisedLocation() async {
        let harness = CacheHarness()
        let tom = CacheTestEndpoint(path: "/cats/tom")
        await harness.prime([tom])
        harness.respond("/cats", method: .post, status: 201, ["Location": "HTTPS://Cache.Example:443/cats/tom"])
        _ = await harness.send("/cats", method: .post)
        #expect(harness.cache.storage.responses(forKey: HTTPCache.key(for: cacheURL("/cats/tom"))).isEmpty)
    }

    @Test(
        "§4.4 which URLs a response invalidates: the target, and same-origin references resolved against it",
        arguments: [
            ([:], ["https://cache.example/cats/"]),
            (["Location": "tom"], ["https://cache.example/cats/", "https://cache.example/cats/tom"]),
            (["Content-Location": "../dogs"], ["https://cache.example/cats/", "https://cache.example/dogs"]),
            (["Location": "//other.example/cats"], ["https://cache.example/cats/"]),
            (
                ["Location": "HTTPS://CACHE.EXAMPLE:443/x"],
                ["https://cache.example/cats/", "HTTPS://CACHE.EXAMPLE:443/x"]
            ),
        ] as [(HTTPHeaders, [String])])
    func invalidatedURLs(_ headers: HTTPHeaders, _ expected: [String]) {
        let url = cacheURL("/cats/")
        let response = HTTPResponse(statusCode: 201, headers: headers, url: url)
        let urls = CacheStorability.invalidatedURLs(by: response, to: cacheRequest("/cats/", method: "POST"))
        #expect(urls.map(\.absoluteString) == expected)
        #expect(
            CacheStorability.invalidatedURLs(
                by: HTTPResponse(statusCode: 404, headers: headers, url: url),
                to: cacheRequest("/cats/", method: "POST")
            ).isEmpty)
    }

    @Test(
        "RFC 9110 §9.2.1 every method but GET, HEAD, OPTIONS and TRACE is unsafe",
        arguments: [
            ("GET", false), ("HEAD", false), ("OPTIONS", false), ("TRACE", false), ("POST", true),
            ("PUT", true), ("PATCH", true), ("DELETE", true), ("PURGE", true), ("CONNECT", true),
        ])
    func unsafeMethods(_ method: String, _ unsafe: Bool) {
        #expect(CacheStorability.isUnsafe(HTTPMethod(rawValue: method)) == unsafe)
    }
}
