import Foundation

/// Where an ``HTTPCache`` keeps its responses: a small key-value port, so that any store can
/// hold them.
///
/// A key is a request URL without its fragment (RFC 9111 §2: the cache key of a GET); its
/// value is the list of responses stored for that URL, one per variant of a `Vary`
/// response (§4.1), most recently stored first. Every method may be called from any thread
/// at the same time; a storage bounds its own size. Two built in:
/// ``MemoryCacheStorage`` and ``DirectoryCacheStorage``.
///
/// ```swift
/// struct NoStorage: HTTPCacheStorage {
///     func responses(forKey key: String) -> [CachedResponse] { [] }
///     func setResponses(_ responses: [CachedResponse], forKey key: String) {}
///     func removeAll() {}
/// }
/// let cache = HTTPCache(storage: NoStorage())
/// ```
public protocol HTTPCacheStorage: Sendable {
    /// The responses stored for `key`, most recent first; none when nothing is (or what was
    /// stored can no longer be read).
    func responses(forKey key: String) -> [CachedResponse]

    /// Replaces the responses stored for `key`; an empty list removes the key.
    func setResponses(_ responses: [CachedResponse], forKey key: String)

    /// Removes every stored response.
    func removeAll()
}
