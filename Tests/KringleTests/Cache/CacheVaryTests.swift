import Foundation
import Kringle
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("RFC 9111 §4.1 Vary")
struct CacheVaryTests {
    /// A response's `Vary`, the request it was stored for and a later request, and whether
    /// the stored response may answer the later one.
    struct Matching: Sendable, CustomTestStringConvertible {
        let label: String
        let vary: [String]
        var stored: [String: String] = [:]
        var presented: [String: String] = [:]
        let matches: Bool

        var testDescription: String { label }
    }

    static let matchings: [Matching] = [
        Matching(label: "no Vary", vary: [], stored: ["Accept": "a"], presented: ["Accept": "b"], matches: true),
        Matching(label: "absent from both", vary: ["Accept-Language"], matches: true),
        Matching(
            label: "the same value", vary: ["Accept-Language"], stored: ["Accept-Language": "en"],
            presented: ["Accept-Language": "en"], matches: true),
        Matching(
            label: "a different value", vary: ["Accept-Language"], stored: ["Accept-Language": "en"],
            presented: ["Accept-Language": "fr"], matches: false),
        Matching(
            label: "absent from the stored request", vary: ["Accept-Language"], presented: ["Accept-Language": "en"],
            matches: false),
        Matching(
            label: "absent from the new request", vary: ["Accept-Language"], stored: ["Accept-Language": "en"],
            matches: false),
        Matching(
            label: "whitespace around list members", vary: ["Accept-Encoding"],
            stored: ["Accept-Encoding": "gzip, br"], presented: ["Accept-Encoding": "gzip,br"], matches: true),
        Matching(
            label: "more whitespace around list members", vary: ["Accept-Encoding"],
            stored: ["Accept-Encoding": "gzip,br"], presented: ["Accept-Encoding": " gzip ,\tbr "], matches: true),
        Matching(
            label: "the members in another order", vary: ["Accept-Encoding"],
            stored: ["Accept-Encoding": "gzip, br"], presented: ["Accept-Encoding": "br, gzip"], matches: false),
        Matching(
            label: "case of the value is kept", vary: ["X-Variant"], stored: ["X-Variant": "Blue"],
            presented: ["X-Variant": "blue"], matches: false),
        Matching(
            label: "field names in any case", vary: ["accept-LANGUAGE"], stored: ["Accept-Language": "en"],
            presented: ["ACCEPT-LANGUAGE": "en"], matches: true),
        Matching(
            label: "every named field must match", vary: ["Accept, Accept-Language"],
            stored: ["Accept": "a", "Accept-Language": "en"], presented: ["Accept": "a", "Accept-Language": "fr"],
            matches: false),
        Matching(
            label: "every named field matches", vary: ["Accept, Accept-Language"],
            stored: ["Accept": "a", "Accept-Language": "en"], presented: ["Accept-Language": "en", "Accept": "a"],
            matches: true),
        Matching(
            label: "names on several Vary lines", vary: ["Accept", "Accept-Language"],
            stored: ["Accept": "a", "Accept-Language": "en"], presented: ["Accept": "a", "Accept-Language": "fr"],
            matches: false),
        Matching(
            label: "fields Vary does not name may differ", vary: ["Accept"], stored: ["Accept": "a", "X-Id": "1"],
            presented: ["Accept": "a", "X-Id": "2"], matches: true),
        Matching(label: "Vary: * never matches", vary: ["*"], matches: false),
        Matching(
            label: "Vary: * among names never matches", vary: ["Accept, *"], stored: ["Accept": "a"],
            presented: ["Accept": "a"], matches: false),
        Matching(label: "an empty Vary", vary: [" , "], presented: ["Accept": "a"], matches: true),
    ]

    @Test(
        "§4.1 a stored response answers only a request with the same values of the fields it varies on",
        arguments: matchings)
    func matching(_ matching: Matching) {
        let headers = HTTPHeaders(matching.vary.map { ("Vary", $0) })
        var stored = cacheStored(headers)
        stored.varyingRequestHeaders = CacheVary.varyingValues(of: cacheRequest(headers: matching.stored), for: headers)
        #expect(CacheVary.matches(stored, cacheRequest(headers: matching.presented)) == matching.matches)
    }

    @Test("§4.1 the stored request values are the named fields only, names lower-cased, lists normalised")
    func varyingValues() {
        let request = cacheRequest(headers: ["Accept-Encoding": "gzip , br", "Accept": "a", "X-Other": "o"])
        let headers: HTTPHeaders = ["Vary": "Accept-Encoding, Accept-Language, *"]
        #expect(CacheVary.varyingValues(of: request, for: headers) == ["accept-encoding": "gzip,br"])
        #expect(CacheVary.names(in: headers) == ["accept-encoding", "accept-language", "*"])
    }

    // MARK: - variants side by side

    private static func store(_ body: String, language: String?, in cache: HTTPCache, vary: String = "Accept-Language")
    {
        let response = HTTPResponse(
            statusCode: 200, headers: ["Cache-Control": "max-age=600", "Vary": vary], body: Data(body.utf8),
            url: cacheURL("/doc"))
        let request = cacheRequest(headers: language.map { ["Accept-Language": $0] } ?? [:])
        cache.store(response, for: request, requestDate: cacheEpoch, responseDate: cacheEpoch)
    }

    private static func answer(_ language: String?, from cache: HTTPCache) -> String? {
        let request = cacheRequest(headers: language.map { ["Accept-Language": $0] } ?? [:])
        guard case .answer(let stored) = cache.lookup(request, policy: .useProtocol, now: cacheEpoch + 1) else {
            return nil
        }
        return String(decoding: stored.body, as: UTF8.self)
    }

    private static func variants(in cache: HTTPCache) -> [CachedResponse] {
        cache.storage.responses(forKey: HTTPCache.key(for: cacheURL("/doc")))
    }

    @Test("§4.1 several variants are stored side by side, and each request selects its own")
    func variantsSideBySide() {
        let cache = HTTPCache.memory()
        Self.store("english", language: "en", in: cache)
        Self.store("french", language: "fr", in: cache)
        Self.store("default", language: nil, in: cache)
        #expect(Self.variants(in: cache).count == 3)
        #expect(Self.answer("en", from: cache) == "english")
        #expect(Self.answer("fr", from: cache) == "french")
        #expect(Self.answer(nil, from: cache) == "default")
        #expect(Self.answer("de", from: cache) == nil)
    }

    @Test("§4.1 a new response replaces only the variant it was selected for")
    func replacesOwnVariant() {
        let cache = HTTPCache.memory()
        Self.store("english", language: "en", in: cache)
        Self.store("french", language: "fr", in: cache)
        Self.store("french, again", language: "fr", in: cache)
        #expect(Self.variants(in: cache).count == 2)
        #expect(Self.answer("fr", from: cache) == "french, again")
        #expect(Self.answer("en", from: cache) == "english")
        // The most recently stored first (HTTPCacheStorage's order).
        #expect(
            Self.variants(in: cache).map { String(decoding: $0.body, as: UTF8.self) } == ["french, again", "english"])
    }

    @Test("§4.1 a response without Vary replaces every variant its request matches")
    func responseWithoutVary() {
        let cache = HTTPCache.memory()
        Self.store("english", language: "en", in: cache)
        Self.store("french", language: "fr", in: cache)
        let plain = HTTPResponse(
            statusCode: 200, headers: ["Cache-Control": "max-age=600"], body: Data("plain".utf8), url: cacheURL("/doc"))
        let request = cacheRequest(headers: ["Accept-Language": "fr"])
        cache.store(plain, for: request, requestDate: cacheEpoch, responseDate: cacheEpoch)
        #expect(Self.answer("fr", from: cache) == "plain")
        #expect(Self.answer("de", from: cache) == "plain")
    }

    @Test("§4.1 a Vary: * response to a request is not kept, and the variant it replaces goes")
    func varyStarRemovesItsVariant() {
        let cache = HTTPCache.memory()
        Self.store("english", language: "en", in: cache)
        Self.store("french", language: "fr", in: cache)
        Self.store("anything", language: "fr", in: cache, vary: "*")
        #expect(Self.answer("fr", from: cache) == nil)
        #expect(Self.answer("en", from: cache) == "english")
        #expect(Self.variants(in: cache).count == 1)
    }

    @Test("§4.1 at most 16 variants of one URL are kept, the oldest stored going first")
    func variantLimit() {
        let cache = HTTPCache.memory()
        for number in 1...20 { Self.store("v\(number)", language: "l\(number)", in: cache) }
        #expect(Self.variants(in: cache).count == HTTPCache.maximumVariants)
        #expect(Self.answer("l1", from: cache) == nil)
        #expect(Self.answer("l4", from: cache) == nil)
        #expect(Self.answer("l5", from: cache) == "v5")
        #expect(Self.answer("l20", from: cache) == "v20")
    }
}
