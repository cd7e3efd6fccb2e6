import Foundation
import Kringle
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("RFC 9111 §3 storing responses in a private cache")
struct CacheStorabilityTests {
    private static func mayStore(
        _ status: Int, _ headers: HTTPHeaders = [:], method: String = "GET", requestHeaders: [String: String] = [:]
    ) -> Bool {
        let request = cacheRequest(method: method, headers: requestHeaders)
        return CacheStorability.mayStore(
            HTTPResponse(statusCode: status, headers: headers, url: cacheURL("/doc")), for: request)
    }

    /// What makes a response explicitly cacheable (§3): one header field each.
    static let explicitlyCacheable: [HTTPHeaders] = [
        ["Cache-Control": "max-age=60"],
        ["Expires": cacheIMFDate(after: 60)],
        ["Expires": "0"],
        ["Cache-Control": "public"],
        ["Cache-Control": "private"],
        ["Cache-Control": "MAX-AGE=0"],
    ]

    @Test(
        "§3 a heuristically cacheable status (RFC 9110 §15.1) is stored without explicit freshness",
        arguments: [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501])
    func heuristicallyCacheable(_ status: Int) {
        #expect(Self.mayStore(status))
        #expect(Self.mayStore(status, ["Last-Modified": cacheIMFDate(after: -3600)]))
    }

    @Test(
        "§3 any other final status is not stored without explicit freshness",
        arguments: [201, 202, 205, 302, 303, 307, 400, 401, 403, 409, 429, 500, 502, 503, 504, 599])
    func otherStatusesNeedFreshness(_ status: Int) {
        #expect(!Self.mayStore(status))
        #expect(!Self.mayStore(status, ["Last-Modified": cacheIMFDate(after: -3600), "ETag": #""v1""#]))
    }

    @Test(
        "§3 any other final status is stored with max-age, Expires, public or private",
        arguments: [201, 302, 307, 500, 503], explicitlyCacheable)
    func otherStatusesWithFreshness(_ status: Int, _ headers: HTTPHeaders) {
        #expect(Self.mayStore(status, headers))
    }

    @Test(
        "§3 206 (this cache does not combine parts), 304 and 1xx are never stored",
        arguments: [100, 101, 103, 206, 304], explicitlyCacheable)
    func neverStored(_ status: Int, _ headers: HTTPHeaders) {
        #expect(!Self.mayStore(status, headers))
    }

    @Test(
        "§5.2.2.5 a response's no-store forbids storing, whatever else it says",
        arguments: ["no-store", "NO-STORE", "public, max-age=600, no-store", "no-store, private", "no-store=\"x\""])
    func responseNoStore(_ cacheControl: String) {
        #expect(!Self.mayStore(200, ["Cache-Control": cacheControl]))
        #expect(!Self.mayStore(200, ["Cache-Control": cacheControl, "Expires": cacheIMFDate(after: 60)]))
    }

    @Test("§5.2.2.5 no-store on a second Cache-Control line counts too")
    func responseNoStoreOnSecondLine() {
        #expect(!Self.mayStore(200, HTTPHeaders([("Cache-Control", "max-age=60"), ("Cache-Control", "no-store")])))
    }

    @Test(
        "§5.2.1.5 a request's no-store forbids storing its response",
        arguments: ["no-store", "No-Store", "max-age=0, no-store"])
    func requestNoStore(_ cacheControl: String) {
        #expect(!Self.mayStore(200, ["Cache-Control": "max-age=60"], requestHeaders: ["Cache-Control": cacheControl]))
    }

    @Test("§3 a request's other directives do not prevent storing")
    func requestNoCacheStillStores() {
        for cacheControl in ["no-cache", "max-age=0", "only-if-cached"] {
            #expect(
                Self.mayStore(200, ["Cache-Control": "max-age=60"], requestHeaders: ["Cache-Control": cacheControl]))
        }
        #expect(Self.mayStore(200, ["Cache-Control": "max-age=60"], requestHeaders: ["Pragma": "no-cache"]))
    }

    @Test(
        "§3 only responses to GET are stored (the method must be understood and cacheable)",
        arguments: ["HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "PURGE"])
    func onlyGet(_ method: String) {
        #expect(!Self.mayStore(200, ["Cache-Control": "public, max-age=600"], method: method))
    }

    @Test("§3.5 a response to a request with Authorization is stored: this cache is private")
    func authorizationStored() {
        #expect(Self.mayStore(200, ["Cache-Control": "max-age=60"], requestHeaders: ["Authorization": "Bearer t"]))
        #expect(Self.mayStore(200, requestHeaders: ["Authorization": "Bearer t"]))
        #expect(Self.mayStore(200, ["Cache-Control": "private"], requestHeaders: ["Authorization": "Basic dTpw"]))
    }

    @Test(
        "§4.1 a response that varies on * is not stored: it could never be selected",
        arguments: ["*", "Accept, *", " * ", "accept-language,*"])
    func varyStar(_ vary: String) {
        #expect(!Self.mayStore(200, ["Cache-Control": "max-age=60", "Vary": vary]))
    }

    @Test("§4.1 a response that varies on request fields is stored")
    func varyFields() {
        #expect(Self.mayStore(200, ["Cache-Control": "max-age=60", "Vary": "Accept-Language, Accept"]))
        #expect(!Self.mayStore(200, HTTPHeaders([("Vary", "Accept"), ("Vary", "*")])))
    }

    @Test("§3 HTTPCache.store keeps exactly what mayStore allows")
    func storeFollowsMayStore() {
        let cache = HTTPCache.memory()
        let stored: [(path: String, status: Int, headers: HTTPHeaders, kept: Bool)] = [
            ("/ok", 200, [:], true),
            ("/found", 302, [:], false),
            ("/found-fresh", 302, ["Cache-Control": "max-age=60"], true),
            ("/partial", 206, ["Cache-Control": "max-age=60"], false),
            ("/secret", 200, ["Cache-Control": "no-store"], false),
        ]
        for (path, status, headers, _) in stored {
            let response = HTTPResponse(statusCode: status, headers: headers, url: cacheURL(path))
            cache.store(response, for: cacheRequest(path), requestDate: cacheEpoch, responseDate: cacheEpoch)
        }
        for (path, _, _, kept) in stored {
            #expect(cache.storage.responses(forKey: cacheURL(path).absoluteString).count == (kept ? 1 : 0), "\(path)")
        }
        let post = HTTPResponse(statusCode: 200, headers: ["Cache-Control": "max-age=60"], url: cacheURL("/post"))
        cache.store(post, for: cacheRequest("/post", method: "POST"), requestDate: cacheEpoch, responseDate: cacheEpoch)
        #expect(cache.storage.responses(forKey: cacheURL("/post").absoluteString).isEmpty)
    }

    @Test("§2 the cache key is the URL without its fragment")
    func cacheKey() {
        #expect(HTTPCache.key(for: cacheURL("/doc?q=1#part")) == "https://cache.example/doc?q=1")
        #expect(HTTPCache.key(for: cacheURL("/doc")) == "https://cache.example/doc")
        #expect(HTTPCache.key(for: cacheURL("/doc?q=1")) != HTTPCache.key(for: cacheURL("/doc?q=2")))
    }
}
