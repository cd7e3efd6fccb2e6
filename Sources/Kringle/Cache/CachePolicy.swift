/// How one request uses the client's ``HTTPCache`` (when it has one).
///
/// Set it on an endpoint (``Endpoint/cachePolicy``) or for one call
/// (``NetworkClient/request(_:_:body:cachePolicy:as:)``). A request's own `Cache-Control`
/// header (`no-cache`, `max-age=0`, `only-if-cached`…) is honoured under
/// ``useProtocol``.
public enum CachePolicy: Sendable, Hashable {
    /// RFC 9111: a fresh stored response answers at once, a stale one is revalidated, and
    /// what the network answers is stored when HTTP allows it. The default.
    case useProtocol
    /// Always asks the network (without validators) and stores what it answers, as
    /// ``useProtocol`` would.
    case reload
    /// A stored response answers however old it is; only without one is the network asked.
    case returnCacheElseLoad
    /// A stored response answers however old it is; without one the request fails with
    /// ``KringleError/notCached(_:)`` and never reaches the network.
    case cacheOnly
}
