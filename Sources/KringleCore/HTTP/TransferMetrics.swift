import Foundation

/// Where the time of one exchange went, and what it carried: one request and its response,
/// as a transport measured them.
///
/// The moments are durations from ``start``; a moment the transport cannot see, or that the
/// exchange did not have (no TLS handshake for `http`, no lookup or connect on a reused
/// connection, where they read zero), is `nil`. ``CurlTransport`` fills every field.
/// `URLSessionTransport` fills what `URLSessionTaskMetrics` gives on Apple platforms; on
/// Linux, where FoundationNetworking delivers no task metrics, only what the transport times
/// itself: ``start``, ``firstResponseByte`` (the response head), ``total`` and the decoded
/// body bytes.
public struct TransferMetrics: Sendable, Hashable {
    /// When the transport started the exchange.
    public var start: Date
    /// From start to the end of the exchange (the last body byte).
    public var total: TimeInterval
    /// From start to the end of the name lookup.
    public var domainLookup: TimeInterval?
    /// From start to the TCP connection being established.
    public var connect: TimeInterval?
    /// From start to the end of the TLS handshake.
    public var secureConnect: TimeInterval?
    /// From start to the request beginning to go out, all connection set-up done (curl's
    /// pre-transfer time; URLSession's request start).
    public var requestSent: TimeInterval?
    /// From start to the first byte of the response.
    public var firstResponseByte: TimeInterval?
    /// Bytes of the request on the wire: its head and its body.
    public var requestBytes: Int64?
    /// Bytes of the response on the wire: its head(s) and its body as sent (before decoding).
    public var responseBytes: Int64?
    /// Bytes of the response body after content decoding.
    public var decodedBodyBytes: Int64?
    /// The version of HTTP the response came in.
    public var httpVersion: HTTPVersion?
    /// The address of the server (or proxy) the connection went to.
    public var remoteAddress: String?
    /// The port of that connection.
    public var remotePort: Int?
    /// Whether the exchange reused a connection opened earlier.
    public var reusedConnection: Bool?
    /// Whether the exchange was answered from a recording rather than the network
    /// (`KringleTesting.ReplayTransport` sets it): its ``start`` is when it was replayed,
    /// while ``total``, the version and the address are those recorded. `false` for an
    /// exchange that went over the network.
    public var isReplayed: Bool

    /// Metrics with the moments the transport knows; the others stay `nil`.
    public init(
        start: Date, total: TimeInterval, domainLookup: TimeInterval? = nil, connect: TimeInterval? = nil,
        secureConnect: TimeInterval? = nil, requestSent: TimeInterval? = nil, firstResponseByte: TimeInterval? = nil,
        requestBytes: Int64? = nil, responseBytes: Int64? = nil, decodedBodyBytes: Int64? = nil,
        httpVersion: HTTPVersion? = nil, remoteAddress: String? = nil, remotePort: Int? = nil,
        reusedConnection: Bool? = nil, isReplayed: Bool = false
    ) {
        self.start = start
        self.total = total
        self.domainLookup = domainLookup
        self.connect = connect
        self.secureConnect = secureConnect
        self.requestSent = requestSent
        self.firstResponseByte = firstResponseByte
        self.requestBytes = requestBytes
        self.responseBytes = responseBytes
        self.decodedBodyBytes = decodedBodyBytes
        self.httpVersion = httpVersion
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.reusedConnection = reusedConnection
        self.isReplayed = isReplayed
    }
}
