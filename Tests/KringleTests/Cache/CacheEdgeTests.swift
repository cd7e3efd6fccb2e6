import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore
@testable import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The rules at the edges of the cache: what streams, other methods and a request's own
/// `cachePolicy` do, and what a late revalidation may not undo.
@Suite("Cache edges: uploads, other methods, HTTPRequest policies, late revalidations", .generousTimeLimit)
struct CacheEdgeTests {
    @Test("§4.4 a streamed upload (PUT of a file) still invalidates the URL it went to")
    func streamedUploadInvalidates() async throws {
        let harness = CacheHarness()
        let doc = CacheTestEndpoint(path: "/doc")
        await harness.prime([doc])
        harness.respond("/doc", method: .put, status: 204)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kringle-cache-\(UUID())")
        try Data("new".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        _ = try await harness.client.upload(file, to: doc, method: .put, as: Data.self).value

        #expect(harness.cache.storage.responses(forKey: HTTPCache.key(for: cacheURL("/doc"))).isEmpty)
        #expect(await harness.send("/doc").cacheStatus == .network)
    }

    @Test(".cacheOnly never reaches the network, whatever the method", arguments: [HTTPMethod.post, .head, .delete])
    func cacheOnlyOtherMethods(_ method: HTTPMethod) async {
        let harness = CacheHarness()
        harness.respond("/doc", method: method)
        let outcome = await harness.send("/doc", method: method, policy: .cacheOnly)
        guard case .failure(KringleError.notCached(let url)) = outcome else {
            Issue.record("expected notCached, got \(outcome)")
            return
        }
        #expect(url == cacheURL("/doc"))
        #expect(harness.stub.requests.isEmpty)
    }

    @Test(
        "an HTTPRequest's own cachePolicy decides where the endpoint and the call leave .useProtocol",
        arguments: [
            (URLRequest.CachePolicy.reloadIgnoringLocalCacheData, CachePolicy.reload),
            (.reloadIgnoringLocalAndRemoteCacheData, .reload),
            (.returnCacheDataElseLoad, .returnCacheElseLoad),
            (.returnCacheDataDontLoad, .cacheOnly),
            (.useProtocolCachePolicy, .useProtocol),
        ])
    func urlRequestPolicy(_ policy: URLRequest.CachePolicy, _ expected: CachePolicy) {
        #expect(CachePolicy(policy) == expected)
    }

    @Test("an interceptor that sets reloadIgnoringLocalCacheData sends a fresh entry's request to the network")
    func interceptorPolicy() async {
        struct Reloading: RequestInterceptor {
            func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest> {
                var reloading = request
                reloading.cachePolicy = .reload
                return Promise(reloading)
            }
        }
        let stub = StubTransport()
        stub.stub(.get, "/doc", with: StubTransport.Stub(status: 200, headers: ["Cache-Control": "max-age=600"]))
        var configuration = NetworkClient.Configuration()
        configuration.cache = .memory()
        let plain = NetworkClient(configuration: configuration, transport: stub)
        let endpoint = CacheTestEndpoint(path: "/doc")
        _ = await plain.request(.get, endpoint, as: Data.self).outcome()
        #expect(await plain.request(.get, endpoint, as: Data.self).outcome().cacheStatus == .hit)

        let reloading = plain.newClient(withAdditionalInterceptors: [Reloading()])
        #expect(await reloading.request(.get, endpoint, as: Data.self).outcome().cacheStatus == .network)
        #expect(stub.requests.count == 2)
    }

    @Test("a revalidation that ends after the entry was invalidated or replaced does not bring the old one back")
    func lateReplaceLoses() {
        let cache = HTTPCache.memory()
        let request = cacheRequest("/doc")
        let old = cacheStored(["ETag": #""v1""#], body: "old")
        cache.storage.setResponses([old], forKey: HTTPCache.key(for: old.url))
        cache.removeResponses(for: old.url)  // a POST invalidated it meanwhile
        cache.replace(old, with: old.markedStale())
        #expect(cache.candidates(for: request).isEmpty)

        let new = cacheStored(["ETag": #""v2""#], body: "new")
        cache.storage.setResponses([new], forKey: HTTPCache.key(for: new.url))  // a newer 200 came
        cache.replace(old, with: old)
        #expect(cache.candidates(for: request) == [new])
    }

    @Test("§4.3.4 a 304 without validators answers for the response it validated, in one request")
    func bareNotModified() async {
        let harness = CacheHarness()
        harness.respond("/doc", ["Cache-Control": "max-age=10", "ETag": #""v1""#], body: "old")
        _ = await harness.send("/doc")
        harness.clock.advance(by: 20)
        harness.respond("/doc", status: 304, ["Cache-Control": "max-age=10"])
        let outcome = await harness.send("/doc")
        #expect(outcome.cacheStatus == .revalidated)
        #expect(outcome.text == "old")
        #expect(harness.requests(to: "/doc").count == 2)
    }

    @Test(
        "RFC 9110 §4.2.3 keys: scheme and host in lower case, no default port, an empty path is /",
        arguments: [
            ("HTTPS://Cache.Example:443/doc", "https://cache.example/doc"),
            ("http://cache.example:80/doc?q=1", "http://cache.example/doc?q=1"),
            ("http://cache.example", "http://cache.example/"),
            ("http://cache.example?q=1", "http://cache.example/?q=1"),
            ("http://cache.example:8080/Doc", "http://cache.example:8080/Doc"),
            ("https://cache.example/doc#part", "https://cache.example/doc"),
        ])
    func keys(_ url: String, _ key: String) throws {
        #expect(HTTPCache.key(for: try #require(URL(string: url))) == key)
    }

    @Test("§4.1 of two stored responses that both match, the most recent by Date answers")
    func mostRecentByDate() {
        let cache = HTTPCache.memory()
        let older = cacheStored(["Date": cacheIMFDate(after: -100)], body: "older")
        var newer = cacheStored(["Date": cacheIMFDate(after: 0), "Vary": "Accept"], body: "newer")
        newer.varyingRequestHeaders = [:]
        cache.storage.setResponses([older, newer], forKey: HTTPCache.key(for: older.url))
        #expect(cache.selected(for: cacheRequest("/doc"))?.body == Data("newer".utf8))
    }

    @Test("a symbolic link in place of the cache directory is refused, the directory it names untouched")
    func linkedDirectoryRefused() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kringle-cache-link-\(UUID())")
        let target = root.appendingPathComponent("target")
        let link = root.appendingPathComponent("link")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)

        #expect(throws: KringleError.self) { try HTTPCache.directory(link) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty)
        _ = try HTTPCache.directory(target)
    }
}
