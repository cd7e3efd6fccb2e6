import Foundation

/// What a transport's connection pool holds for one host, as far as the transport can tell
/// (``NetworkClient/poolStatistics()``); a count it cannot tell is `nil`.
///
/// | count | ``CurlTransport`` | `URLSessionTransport` |
/// |---|---|---|
/// | ``inUse`` | transfers running (one connection each over HTTP/1.1; HTTP/2 shares one) | tasks running, waiting ones included |
/// | ``queued`` | requests waiting for room under `maximumConnectionsPerHost` or `maximumConnections` | `nil`: URLSession does not say which tasks wait |
/// | ``openConnections``, ``idleConnections`` | `nil`: libcurl 7.88 has no way to read its connection cache | `nil`: URLSession does not show its pool |
public struct HostPoolStatistics: Sendable, Hashable {
    /// The host, as the requests' URLs name it: `scheme://host:port` for curl, `host:port`
    /// (or `host`) for URLSession.
    public var host: String
    /// Requests being exchanged now.
    public var inUse: Int
    /// Requests waiting for a connection; `nil` when the transport cannot tell.
    public var queued: Int?
    /// Connections open to the host, busy or idle; `nil` when the transport cannot tell.
    public var openConnections: Int?
    /// Open connections waiting for a request; `nil` when the transport cannot tell.
    public var idleConnections: Int?

    /// Statistics for `host`.
    public init(host: String, inUse: Int, queued: Int?, openConnections: Int? = nil, idleConnections: Int? = nil) {
        self.host = host
        self.inUse = inUse
        self.queued = queued
        self.openConnections = openConnections
        self.idleConnections = idleConnections
    }
}
