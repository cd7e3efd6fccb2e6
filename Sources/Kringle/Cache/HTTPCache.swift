import Foundation
@_spi(KringleInternals) import KringlePromise

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A private HTTP cache (RFC 9111) for a ``NetworkClient``: fresh responses answer without
/// the network, stale ones are revalidated with `If-None-Match` / `If-Modified-Since`.
///
/// ```swift
/// var configuration = NetworkClient.Configuration()
/// configuration.cache = .memory(maximumBytes: 20_000_000)
/// let client = NetworkClient(configuration: configuration)
/// ```
///
/// It keeps what a private cache may keep (a single user's responses, `private` and
/// `Authorization` ones included): responses to GET with explicit freshness or a
/// heuristically cacheable status, never `no-store` ones, one entry per `Vary` variant.
/// ``Response/cacheStatus`` says where each response came from. One cache may serve
/// several clients at once.
public final class HTTPCache: Sendable {
    /// Where the responses are kept.
    public let storage: any HTTPCacheStorage
    /// Whether `storage` answers without blocking (kept in memory): then the client uses it
    /// on whatever thread the request is on; otherwise on its coding queue.
    let answersWithoutBlocking: Bool
    /// Serialises each read-modify-write of one key's variants, so that two responses
    /// stored at once both stay.
    private let updates = Locked(())

    /// The most variants of one URL kept (RFC 9111 §4.1 lets a cache keep several); the
    /// least recently stored goes first.
    static let maximumVariants = 16

    /// A cache in `storage`; the client calls it off the caller's thread.
    public convenience init(storage: any HTTPCacheStorage) {
        self.init(storage: storage, answersWithoutBlocking: false)
    }

    init(storage: any HTTPCacheStorage, answersWithoutBlocking: Bool) {
        self.storage = storage
        self.answersWithoutBlocking = answersWithoutBlocking
    }

    /// A cache in memory holding at most `maximumBytes` (bodies and header fields), the
    /// least recently used responses evicted first.
    public static func memory(maximumBytes: Int = 10 * 1024 * 1024) -> HTTPCache {
        HTTPCache(storage: MemoryCacheStorage(maximumBytes: maximumBytes), answersWithoutBlocking: true)
    }

    /// A cache in `directory` (created, mode 0700, if missing) holding at most
    /// `maximumBytes`, one file per URL, that the next run of the program finds again.
    ///
    /// See ``DirectoryCacheStorage``. Use a directory of its own, such as
    /// `Caches/<app>/http` on Apple platforms or `$XDG_CACHE_HOME/<app>/http` on Linux.
    ///
    /// - Throws: ``KringleError/file(_:underlying:)`` when the directory cannot be created,
    ///   or is not a directory of the current user's that only they can write to.
    public static func directory(_ directory: URL, maximumBytes: Int = 100 * 1024 * 1024) throws -> HTTPCache {
        HTTPCache(storage: try DirectoryCacheStorage(directory: directory, maximumBytes: maximumBytes))
    }

    /// Removes every stored response.
    public func removeAll() {
        storage.removeAll()
    }

    /// Removes the responses stored for `url`.
    public func removeResponses(for url: URL) {
        updates.withLock { _ in storage.setResponses([], forKey: Self.key(for: url)) }
    }

    /// The cache key of a URL (RFC 9111 §2): the URL without its fragment, which never
    /// reaches a server.
    static func key(for url: URL) -> String {
        let text = url.absoluteString
        guard let hash = text.utf8.firstIndex(of: UInt8(ascii: "#")) else { return text }
        return String(text[..<hash])
    }

    /// The stored responses `request` may be answered with (§4.1), most recent first.
    func candidates(for request: URLRequest) -> [CachedResponse] {
        guard let url = request.url else { return [] }
        return storage.responses(forKey: Self.key(for: url)).filter { CacheVary.matches($0, request) }
    }

    /// Stores `response` to `request` if §3 allows it, in place of the variant it replaces
    /// (§4.1: the same values of the `Vary` fields); a `no-store` answer to a GET removes
    /// that variant instead, as it is outdated.
    func store(_ response: HTTPResponse, for request: URLRequest, requestDate: Date, responseDate: Date) {
        guard let url = request.url, (request.httpMethod ?? "GET") == "GET" else { return }
        let storable = CacheStorability.mayStore(response, for: request)
        let entry = CachedResponse(
            url: url, statusCode: response.statusCode, headers: response.headers, body: response.body,
            varyingRequestHeaders: CacheVary.varyingValues(of: request, for: response.headers),
            requestDate: requestDate, responseDate: responseDate)
        update(key: Self.key(for: url)) { variants in
            variants.removeAll { CacheVary.matches($0, request) }
            if storable { variants.insert(entry, at: 0) }
        }
    }

    /// Replaces `stored` by `updated` (a revalidation's result), if it is still there.
    func replace(_ stored: CachedResponse, with updated: CachedResponse) {
        update(key: Self.key(for: stored.url)) { variants in
            variants.removeAll { $0 == stored }
            variants.insert(updated, at: 0)
        }
    }

    /// Removes `stored`: revalidating it showed that it no longer describes the resource.
    func remove(_ stored: CachedResponse) {
        update(key: Self.key(for: stored.url)) { variants in variants.removeAll { $0 == stored } }
    }

    /// §4.4: a non-error response to an unsafe request invalidates what is stored for its
    /// target and the same-origin URLs it names.
    func invalidate(after response: HTTPResponse, to request: URLRequest) {
        guard CacheStorability.isUnsafe(request.httpMethod ?? "GET") else { return }
        for url in CacheStorability.invalidatedURLs(by: response, to: request) {
            removeResponses(for: url)
        }
    }

    /// §4.3.5: a HEAD response updates the header fields of the stored GET response it
    /// describes (the same validators), as a 304 would.
    func freshen(withHeadResponse response: HTTPResponse, to request: URLRequest, requestDate: Date, responseDate: Date)
    {
        guard response.statusCode == 200 else { return }
        for stored in candidates(for: request) where stored.isSelected(by: response.headers) {
            replace(
                stored,
                with: stored.updated(with: response.headers, requestDate: requestDate, responseDate: responseDate))
            return
        }
    }

    private func update(key: String, _ change: (inout [CachedResponse]) -> Void) {
        updates.withLock { _ in
            var variants = storage.responses(forKey: key)
            let before = variants
            change(&variants)
            if variants.count > Self.maximumVariants { variants.removeLast(variants.count - Self.maximumVariants) }
            if variants != before { storage.setResponses(variants, forKey: key) }
        }
    }
}
