/// Where a response came from, as far as the client's ``HTTPCache`` is concerned
/// (``Response/cacheStatus``).
public enum CacheStatus: String, Sendable, Hashable, CustomStringConvertible {
    /// From the network; the cache was not used (or had nothing to offer).
    case network
    /// From the cache, without the network.
    case hit
    /// From the cache after the server confirmed it with a `304 Not Modified` (RFC 9111
    /// §4.3.4); its header fields are the updated ones.
    case revalidated
    /// From the cache, stale, because revalidating it failed and the response allowed it
    /// (`stale-if-error`, RFC 5861 §4).
    case staleOnError

    /// The status as logs show it: `network`, `hit`, `revalidated`, `stale on error`.
    public var description: String {
        self == .staleOnError ? "stale on error" : rawValue
    }
}
