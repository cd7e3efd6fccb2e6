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
    /// see them (`URLSessionTransport` cannot).
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
