import Foundation
@_spi(KringleInternals) import KringlePromise

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
/// several clients at once, as long as they all act for the same user: what one user's
/// credentials fetched answers the others.
public final class HTTPCache: Sendable {
    /// Where the responses are kept.
    public let storage: any HTTPCacheStorage
    /// Whether `storage` answers without blocking (kept in memory): then the client uses it
    /// on whatever thread the request is on; otherwise on its coding queue.
    let answersWithoutBlocking: Bool
    /// Serialise each read-modify-write of a key's variants, so that two responses stored at
    /// once both stay: one lock per stripe of keys (by hash), so that a slow storage (a
    /// file being rewritten) holds up only the keys of its stripe.
    private let stripes = (0..<16).map { _ in Locked(()) }

    /// The most variants of one URL kept (RFC 9111 §4.1 lets a cache keep several); the
    /// least recently stored goes first.
    static let maximumVariants = 16

    /// A cache in `storage`. The client calls a storage other than ``MemoryCacheStorage``
    /// on its coding queue, never on the caller's thread or the transport's, since it may
    /// block (on files, a database).
    public init(storage: any HTTPCacheStorage) {
        self.storage = storage
        answersWithoutBlocking = storage is MemoryCacheStorage
    }

    /// A cache in memory holding at most `maximumBytes` (bodies and header fields), the
    /// least recently used responses evicted first.
    public static func memory(maximumBytes: Int = 10 * 1024 * 1024) -> HTTPCache {
        HTTPCache(storage: MemoryCacheStorage(maximumBytes: maximumBytes))
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
        let key = Self.key(for: url)
        stripe(for: key).withLock { _ in storage.setResponses([], forKey: key) }
    }

    /// The cache key of a URL (RFC 9111 §2): the URL without its fragment, which never
    /// reaches a server, normalised as RFC 9110 §4.2.3 compares URLs: scheme and host in
    /// lower case, no default port.
    static func key(for url: URL) -> String {
        let text = url.absoluteString
        let withoutFragment = text.utf8.firstIndex(of: UInt8(ascii: "#")).map { String(text[..<$0]) } ?? text
        // The usual URL is already normal: its scheme and host are lower-case and it names
        // no port. Only another one pays for URLComponents.
        guard !isNormal(withoutFragment),
            var components = URLComponents(string: withoutFragment)
        else { return withoutFragment }
        components.scheme = components.scheme?.lowercased()
        // A Unix socket's host is a file system path, whose case matters (issue 32).
        if !UnixSocketURL.isUnixSocket(url) {
            components.percentEncodedHost = components.percentEncodedHost?.lowercased()
        }
        let defaultPort = ["http": 80, "https": 443][components.scheme ?? ""]
        if components.port == defaultPort { components.port = nil }
        if components.percentEncodedPath.isEmpty { components.percentEncodedPath = "/" }
        return components.string ?? withoutFragment
    }

    /// Whether the scheme and authority of `url` hold no upper-case letter and no port.
    private static func isNormal(_ url: String) -> Bool {
        var bytes = url.utf8.makeIterator()
        var slashes = 0
        while let byte = bytes.next() {
            if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) { return false }
            if byte == UInt8(ascii: "/") {
                slashes += 1
                if slashes == 3 { return true }  // the authority ended
            } else if byte == UInt8(ascii: ":"), slashes == 2 {
                return false  // a port (or an IPv6 address, which takes the careful path)
            } else if slashes == 2, byte == UInt8(ascii: "?") {
                return false  // a query but no path: the key needs its `/`
            }
        }
        return slashes >= 3  // without a path (`http://a.example`), the key needs its `/`
    }

    /// The stored responses `request` may be answered with (§4.1), most recently stored
    /// first.
    func candidates(for request: HTTPRequest) -> [CachedResponse] {
        storage.responses(forKey: Self.key(for: request.url)).filter { CacheVary.matches($0, request) }
    }

    /// The one response to answer `request` with, if any: of several that match, the most
    /// recent by `Date` (§4.1).
    func selected(for request: HTTPRequest) -> CachedResponse? {
        let matching = candidates(for: request)
        guard matching.count > 1 else { return matching.first }
        return matching.enumerated().max { lhs, rhs in
            (lhs.element.dateValue, rhs.offset) < (rhs.element.dateValue, lhs.offset)
        }?.element
    }

    /// Stores `response` to `request` if §3 allows it, in place of the variant it replaces
    /// (§4.1: the same values of the `Vary` fields; §4.3.3: a full response replaces what
    /// was stored). A full response that may not be stored (`no-store`, a 302 without
    /// freshness, a 401) removes that variant instead, as it is outdated. A 304 or 206 (the
    /// answer to the caller's own conditional or range request) and a server error leave it.
    func store(_ response: HTTPResponse, for request: HTTPRequest, requestDate: Date, responseDate: Date) {
        guard request.method == .get else { return }
        let url = request.url
        guard CacheStorability.mayStore(response, for: request) else {
            if CacheStorability.replacesStored(response) {
                update(key: Self.key(for: url)) { variants in variants.removeAll { CacheVary.matches($0, request) } }
            }
            return
        }
        let entry = CachedResponse(
            url: url, statusCode: response.statusCode, headers: CacheStorability.storedFields(of: response.headers),
            body: response.body, varyingRequestHeaders: CacheVary.varyingValues(of: request, for: response.headers),
            requestDate: requestDate, responseDate: responseDate)
        update(key: Self.key(for: url)) { variants in
            variants.removeAll { CacheVary.matches($0, request) }
            variants.insert(entry, at: 0)
        }
    }

    /// Replaces `stored` by `updated` (a revalidation's result), if it is still there: an
    /// invalidation or a newer response that came in the meantime wins.
    func replace(_ stored: CachedResponse, with updated: CachedResponse) {
        update(key: Self.key(for: stored.url)) { variants in
            guard let index = variants.firstIndex(of: stored) else { return }
            variants.remove(at: index)
            variants.insert(updated, at: 0)
        }
    }

    /// Removes `stored`: revalidating it showed that it no longer describes the resource.
    func remove(_ stored: CachedResponse) {
        update(key: Self.key(for: stored.url)) { variants in variants.removeAll { $0 == stored } }
    }

    /// §4.4: a non-error response to an unsafe request invalidates what is stored for its
    /// target and the same-origin URLs it names.
    func invalidate(after response: HTTPResponse, to request: HTTPRequest) {
        guard CacheStorability.isUnsafe(request.method) else { return }
        for url in CacheStorability.invalidatedURLs(by: response, to: request) {
            removeResponses(for: url)
        }
    }

    /// §4.3.5: a HEAD response updates the header fields of the stored GET response it
    /// describes (the same validators), as a 304 would; a stored response it shows to be
    /// outdated (other validators, or another `Content-Length`) is marked stale, so the
    /// next request revalidates it.
    func freshen(
        withHeadResponse response: HTTPResponse, to request: HTTPRequest, requestDate: Date, responseDate: Date
    ) {
        guard response.statusCode == 200 else { return }
        for stored in candidates(for: request) {
            let length = (stored.headers["Content-Length"], response.headers["Content-Length"])
            let sameLength = length.0 == nil || length.1 == nil || length.0 == length.1
            guard stored.isSelected(by: response.headers), sameLength else {
                replace(stored, with: stored.markedStale())
                continue
            }
            replace(
                stored,
                with: stored.updated(with: response.headers, requestDate: requestDate, responseDate: responseDate))
        }
    }

    private func stripe(for key: String) -> Locked<Void> {
        stripes[Int(UInt(bitPattern: key.hashValue) % UInt(stripes.count))]
    }

    private func update(key: String, _ change: (inout [CachedResponse]) -> Void) {
        stripe(for: key).withLock { _ in
            var variants = storage.responses(forKey: key)
            let before = variants
            change(&variants)
            if variants.count > Self.maximumVariants { variants.removeLast(variants.count - Self.maximumVariants) }
            if variants != before { storage.setResponses(variants, forKey: key) }
        }
    }
}
