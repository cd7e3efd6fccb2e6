import Foundation

/// How one request uses the client's ``HTTPCache`` (when it has one).
///
/// Set it on an endpoint (``Endpoint/cachePolicy``) or for one call
/// (``NetworkClient/request(_:_:body:cachePolicy:as:timeout:)``); where both say ``useProtocol``,
/// the request's own ``HTTPRequest/cachePolicy`` (an interceptor may set it) decides. A request's own
/// `Cache-Control` header (`no-cache`, `max-age=0`, `only-if-cached`…) is honoured under
/// ``useProtocol``.
///
/// ``returnCacheElseLoad`` and ``cacheOnly`` depart from RFC 9111 on purpose, as their names
/// say: they serve a stored response however stale, even one marked `no-cache` or
/// `must-revalidate` (§4.2.4 forbids that to a cache that chose to; here the caller chose).
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
