import Foundation

/// What a ``Transport`` hands back: one HTTP response, exactly as received.
///
/// No redirect has been followed and no status has been judged; the client does both.
public struct HTTPResponse: Sendable, Hashable {
    /// The response's fields, in one reference shared by its copies until one of them
    /// changes (copy on write, as `Array` does). A response is handed along by value many
    /// times on its way to the caller (the transport's settlement, the promises' outcomes,
    /// each step of the client's pipeline), and as a struct of eleven fields each of those
    /// copies cost a copy of some 300 bytes and a retain and release of every reference in
    /// them: one word to copy is much less, for one allocation.
    private var storage: Storage

    /// The status code, such as 200 or 404.
    public var statusCode: Int {
        get { storage.statusCode }
        set { uniqueStorage().statusCode = newValue }
    }
    /// Every header line, in order, repeated names kept.
    public var headers: HTTPHeaders {
        get { storage.headers }
        _modify { yield &uniqueStorage().headers }
    }
    /// The trailer fields that followed a chunked body (RFC 9112 §7.1.2), such as a checksum
    /// computed while the body was sent; empty when there were none or the transport cannot
    /// see them (`URLSessionTransport` cannot).
    public var trailers: HTTPHeaders {
        get { storage.trailers }
        _modify { yield &uniqueStorage().trailers }
    }
    /// The body, already decoded from any content coding (gzip…).
    public var body: Data {
        get { storage.body }
        _modify { yield &uniqueStorage().body }
    }
    /// The URL that answered.
    public var url: URL {
        get { storage.url }
        set { uniqueStorage().url = newValue }
    }
    /// Where the exchange's time went, when the transport measures it.
    public var metrics: TransferMetrics? {
        get { storage.metrics }
        _modify { yield &uniqueStorage().metrics }
    }
    /// The exchanges of the same call before this one (redirect hops, earlier attempts),
    /// which the client carries along for ``Response/metrics``. Not part of equality.
    var earlierExchanges: [RequestMetrics.Exchange] {
        get { storage.earlierExchanges }
        _modify { yield &uniqueStorage().earlierExchanges }
    }
    /// The attempt of its call the exchange belonged to, from 1 (the client sets it).
    var attempt: Int {
        get { storage.attempt }
        set { uniqueStorage().attempt = newValue }
    }
    /// Where the response came from: the network, or the client's cache.
    var cacheStatus: CacheStatus {
        get { storage.cacheStatus }
        set { uniqueStorage().cacheStatus = newValue }
    }
    /// The `Set-Cookie` lines the network sent with it, when they are not its header
    /// fields' (an answer from the cache carries the stored response's lines, which were
    /// stored in the jar when they arrived and must not be stored again).
    var setCookieFromNetwork: [String]? {
        get { storage.setCookieFromNetwork }
        _modify { yield &uniqueStorage().setCookieFromNetwork }
    }

    /// Where the body arrives, for a response streamed to the caller (the body itself is
    /// then empty).
    var bodyChannel: ResponseBodyChannel? {
        get { storage.bodyChannel }
        set { uniqueStorage().bodyChannel = newValue }
    }

    /// The storage, made this response's own first if another copy shares it.
    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// The `Set-Cookie` lines for the cookie jar.
    var setCookieLines: [String] {
        setCookieFromNetwork ?? headers.values(for: "Set-Cookie")
    }

    /// Creates a response.
    public init(
        statusCode: Int, headers: HTTPHeaders = HTTPHeaders(), trailers: HTTPHeaders = HTTPHeaders(),
        body: Data = Data(), url: URL, metrics: TransferMetrics? = nil
    ) {
        storage = Storage(
            statusCode: statusCode, headers: headers, trailers: trailers, body: body, url: url, metrics: metrics)
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

extension HTTPResponse {
    /// The fields of a response and of its copies that have not changed since
    /// (`@unchecked Sendable` and unchecked exclusivity: a storage shared by several responses
    /// is only read; one is changed only through ``HTTPResponse/uniqueStorage()``, by the one
    /// response that holds it).
    fileprivate final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var statusCode: Int
        @exclusivity(unchecked) var headers: HTTPHeaders
        @exclusivity(unchecked) var trailers: HTTPHeaders
        @exclusivity(unchecked) var body: Data
        @exclusivity(unchecked) var url: URL
        @exclusivity(unchecked) var metrics: TransferMetrics?
        @exclusivity(unchecked) var earlierExchanges: [RequestMetrics.Exchange] = []
        @exclusivity(unchecked) var attempt = 1
        @exclusivity(unchecked) var cacheStatus = CacheStatus.network
        @exclusivity(unchecked) var setCookieFromNetwork: [String]?
        @exclusivity(unchecked) var bodyChannel: ResponseBodyChannel?

        init(
            statusCode: Int, headers: HTTPHeaders, trailers: HTTPHeaders, body: Data, url: URL,
            metrics: TransferMetrics?
        ) {
            self.statusCode = statusCode
            self.headers = headers
            self.trailers = trailers
            self.body = body
            self.url = url
            self.metrics = metrics
        }

        func copy() -> Storage {
            let copy = Storage(
                statusCode: statusCode, headers: headers, trailers: trailers, body: body, url: url, metrics: metrics)
            copy.earlierExchanges = earlierExchanges
            copy.attempt = attempt
            copy.cacheStatus = cacheStatus
            copy.setCookieFromNetwork = setCookieFromNetwork
            copy.bodyChannel = bodyChannel
            return copy
        }
    }
}
