import Foundation

/// What a ``Transport`` hands back: one HTTP response, exactly as received.
///
/// No redirect has been followed and no status has been judged; the client does both.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code, such as 200 or 404.
    public var statusCode: Int
    /// Every header line, in order, repeated names kept.
    public var headers: HTTPHeaders
    /// The trailer fields that followed a chunked body (RFC 9112 §7.1.2), such as a checksum
    /// computed while the body was sent; empty when there were none or the transport cannot
    /// see them (``URLSessionTransport`` cannot).
    public var trailers: HTTPHeaders
    /// The body, already decoded from any content coding (gzip…).
    public var body: Data
    /// The URL that answered.
    public var url: URL
    /// Where the exchange's time went, when the transport measures it.
    public var metrics: TransferMetrics?
    /// The exchanges of the same call before this one (redirect hops, earlier attempts),
    /// which the client carries along for ``Response/metrics``. Not part of equality.
    var earlierExchanges: [RequestMetrics.Exchange] = []
    /// The attempt of its call the exchange belonged to, from 1 (the client sets it).
    var attempt = 1
    /// Where the response came from: the network, or the client's cache.
    var cacheStatus = CacheStatus.network
    /// The `Set-Cookie` lines the network sent with it, when they are not its header
    /// fields' (an answer from the cache carries the stored response's lines, which were
    /// stored in the jar when they arrived and must not be stored again).
    var setCookieFromNetwork: [String]?

    /// Where the body arrives, for a response streamed to the caller (the body itself is
    /// then empty).
    var bodyChannel: ResponseBodyChannel?

    /// The `Set-Cookie` lines for the cookie jar.
    var setCookieLines: [String] {
        setCookieFromNetwork ?? headers.values(for: "Set-Cookie")
    }

    /// Creates a response.
    public init(
        statusCode: Int, headers: HTTPHeaders = HTTPHeaders(), trailers: HTTPHeaders = HTTPHeaders(),
        body: Data = Data(), url: URL, metrics: TransferMetrics? = nil
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.trailers = trailers
        self.body = body
        self.url = url
        self.metrics = metrics
    }

    /// The version of HTTP the response came in, when the transport knows it.
    public var httpVersion: HTTPVersion? {
        metrics?.httpVersion
    }

    /// Whether two responses say the same: status, fields, body and URL. The metrics are
    /// left out: they describe the exchange (its times), not the response.
    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.statusCode == rhs.statusCode && lhs.headers == rhs.headers && lhs.trailers == rhs.trailers
            && lhs.body == rhs.body && lhs.url == rhs.url
    }

    /// Hashes the status, headers, body and URL.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(statusCode)
        hasher.combine(headers)
        hasher.combine(body)
        hasher.combine(url)
    }

    /// This exchange as the call's metrics list it.
    var exchange: RequestMetrics.Exchange {
        RequestMetrics.Exchange(
            attempt: attempt, url: url, statusCode: statusCode, metrics: cacheStatus == .hit ? nil : metrics)
    }

    /// The metrics of the whole call this response ends.
    var callMetrics: RequestMetrics {
        RequestMetrics(exchanges: earlierExchanges + [exchange])
    }
}

/// Where the time of one exchange went, and what it carried: one request and its response,
/// as a transport measured them.
///
/// The moments are durations from ``start``; a moment the transport cannot see, or that the
/// exchange did not have (no TLS handshake for `http`, no lookup or connect on a reused
/// connection, where they read zero), is `nil`. ``CurlTransport`` fills every field.
/// ``URLSessionTransport`` fills what `URLSessionTaskMetrics` gives on Apple platforms; on
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
