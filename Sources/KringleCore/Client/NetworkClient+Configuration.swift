import Foundation

extension NetworkClient {
    /// How a ``NetworkClient`` builds, sends and judges requests.
    ///
    /// ```swift
    /// var configuration = NetworkClient.Configuration()
    /// configuration.defaultHeaders["User-Agent"] = "CatApp/1.0"
    /// configuration.timeout = 10
    /// configuration.cookieJar = try CookieJar(fileURL: cookiesFile)
    /// let client = NetworkClient(configuration: configuration)
    /// ```
    ///
    /// ## Settings by transport
    ///
    /// A configuration means the same on every transport: the client itself keeps headers,
    /// redirects, cookies, the cache, retries, status checks, decoding, logging and
    /// redaction. The time limits and the response limits need the transport's help, which
    /// each gives as far as it can:
    ///
    /// | setting | ``CurlTransport`` | `URLSessionTransport` | a ``Transport`` of your own |
    /// |---|---|---|---|
    /// | ``timeout`` | yes: libcurl ends the request at its deadline, to the millisecond | yes: the client's timer, to the millisecond | yes: the client's timer |
    /// | ``connectTimeout`` | yes: `CURLOPT_CONNECTTIMEOUT_MS` | no: ignored, reported once through the ``logger`` | only if it reads ``TransferRequest/connectTimeout`` (transfers) |
    /// | ``idleTimeout`` | yes: the client's watchdog | yes: the client's watchdog | yes: the client's watchdog, from the progress ``Transport/transfer(_:)`` reports |
    /// | ``responseLimits`` | yes: the transfer stops as one is crossed | yes: the transfer stops as one is crossed | checked once the response has arrived |
    ///
    /// (On a clock other than the system's, such as a test's `ManualClock`, the client's own
    /// timer keeps ``timeout`` on every transport.)
    ///
    /// A setting a transport cannot honour never makes a request fail: the client goes on
    /// without it, and tells its logger once, when the client is made
    /// (``KringleLogEvent/settingIgnored(setting:transport:reason:)``). Settings only one
    /// transport has (connection limits, proxies, TLS) live on that transport's own
    /// configuration (``CurlTransport/Configuration-swift.struct``, the
    /// `URLSessionConfiguration` of a `URLSessionTransport`).
    public struct Configuration: Sendable {
        /// Headers sent with every request; an endpoint's own headers win over them (names
        /// compared in any case, sent as written).
        public var defaultHeaders: [String: String] = ["Accept": "application/json"]
        /// Which headers carry a credential (an API key among ``defaultHeaders``, say): the
        /// client drops them when a redirect leads to another origin, as it always does
        /// `Authorization`, `Proxy-Authorization` and `Cookie`. Endpoints and interceptors
        /// name their own too (``Endpoint/credentialHeaders``,
        /// ``RequestInterceptor/credentialHeaders``).
        public var credentialHeaders: Set<String> = []
        /// Query items put before every endpoint's own.
        public var defaultQueryItems: [URLQueryItem] = []
        /// Decodes response bodies.
        public var decoder = JSONDecoder()
        /// Encodes `Encodable` request bodies.
        public var encoder = JSONEncoder()
        /// Status codes that count as success; others reject with
        /// ``KringleError/unacceptableStatusCode(_:_:)``.
        public var acceptableStatusCodes: Range<Int> = 200..<300
        /// How many redirects one request may follow; one more rejects with
        /// ``KringleError/tooManyRedirects(_:)``.
        public var maximumRedirects = 10
        /// Whether a redirect from `https` to plain `http` is followed. No by default: the
        /// request (cookies, the body of a 307) would cross the network readable and
        /// changeable by anyone on the path; such a redirect rejects with
        /// ``KringleError/insecureRedirect(from:to:)``.
        public var allowsRedirectsFromHTTPSToHTTP = false
        /// Seconds one call may take in total, with sub-second precision; then it is
        /// cancelled and rejects with ``KringleError/timedOut(_:)`` (``TimeoutPhase/total``).
        /// Zero or less sets no limit. An endpoint's ``Endpoint/timeout`` wins over it, and a
        /// call's own `timeout` argument over both.
        ///
        /// It is the one limit on a whole request, on every transport: no transport has a
        /// timeout setting of its own. (A transport used without a client takes each
        /// request's ``HTTPRequest/timeout``, which the client sets from this too.)
        ///
        /// The time runs from the call to its settlement, across everything it waits for: a
        /// place in the transport's queue for a connection, DNS, connecting, TLS, the
        /// exchange, every redirect hop, every retry and the waits between them. A retry (or
        /// a server's `Retry-After`) that could not start before the deadline is not
        /// started: the call fails at once with the attempt's error.
        ///
        /// A download, an upload or a streamed body is limited by silence instead
        /// (``idleTimeout``, or this when that is `nil`): it fails once nothing has moved
        /// for so long, however long the whole transfer takes.
        public var timeout: TimeInterval = 60
        /// Seconds a request may spend getting a connection ready: resolving the host,
        /// the TCP handshake, a proxy's tunnel and the TLS handshake; then it rejects with
        /// ``KringleError/timedOut(_:)`` (``TimeoutPhase/connect``). `nil` (the default)
        /// leaves connecting to the other limits. Time spent waiting in the transport's
        /// queue for a free connection does not count (``timeout`` bounds that).
        ///
        /// It fails fast on a host that is down or unreachable, while ``timeout`` still lets
        /// a slow answer from a reachable one take its time:
        ///
        /// ```swift
        /// configuration.connectTimeout = 0.25
        /// configuration.timeout = 30
        /// ```
        ///
        /// `CurlTransport` applies it (`CURLOPT_CONNECTTIMEOUT_MS`). URLSession has no
        /// limit on connecting alone, so `URLSessionTransport` sends requests without it,
        /// which the client reports once through its ``logger``; ``timeout`` still bounds
        /// them. A transport of your own sees it only on a transfer
        /// (``TransferRequest/connectTimeout``). See "Settings by transport" above.
        public var connectTimeout: TimeInterval?
        /// Seconds a request may go without a byte moving either way once it has a
        /// connection; then it is cancelled and rejects with ``KringleError/timedOut(_:)``
        /// (``TimeoutPhase/idle``). `nil` (the default) sets no such limit on plain
        /// requests, and leaves ``timeout`` as the limit on silence for downloads, uploads
        /// and streamed bodies.
        ///
        /// The client keeps it on its own clock from the transport's progress reports, so it
        /// holds for every transport (a transport of your own included, through
        /// ``Transport/transfer(_:)``), with sub-second precision. A streamed response body
        /// waiting for its reader is not idle: a reader may take its time.
        public var idleTimeout: TimeInterval?
        /// Stores cookies from every response (redirect hops included) and sends them with
        /// every request; `nil` turns cookies off. An in-memory jar by default.
        public var cookieJar: CookieJar? = CookieJar()
        /// Adapt every request and decide retries, in order (see ``RequestInterceptor``).
        public var interceptors: [any RequestInterceptor] = []
        /// How many times one call may be retried; `nil` means no limit, so only the
        /// interceptors stop a failing call: use it only with interceptors that give up by
        /// themselves.
        public var maxRetryCount: Int? = 3
        /// Caps retries across calls, per host: by default at 20% of the first attempts over
        /// the last ten seconds, plus ten (see ``RetryBudget``); `nil` leaves each call to
        /// ``maxRetryCount`` alone.
        public var retryBudget: RetryBudget? = RetryBudget()
        /// Paces requests per host and holds them while a host says it is overloaded (a
        /// `429` or `503` with `Retry-After`, `RateLimit` fields): see ``HostThrottle``.
        /// `nil`, the default, sends every request at once.
        public var throttle: HostThrottle?
        /// Whether identical GET and HEAD requests in flight at once share one exchange: the
        /// same method, URL and header fields (so different credentials never share), each
        /// caller with its own deadline, decoded value and cancellation (the exchange stops
        /// when every caller has cancelled). Never a stream or a download. No by default; an
        /// endpoint may opt out (``Endpoint/allowsCoalescing``).
        ///
        /// ```swift
        /// configuration.coalescesRequests = true   // 50 views asking for one profile: 1 request
        /// ```
        public var coalescesRequests = false
        /// Receives each call's trace context and spans (see ``KringleInstrument``): with one
        /// that gives a ``TraceContext``, every hop carries `traceparent` and `tracestate`
        /// (W3C Trace Context), one trace id across redirects and retries and a span id of
        /// its own per hop. None by default.
        public var instrument: (any KringleInstrument)?
        /// Receives request, response, retry and failure events; none by default.
        public var logger: (any KringleLogger)?
        /// Where the client reads the time: for timeouts, retry delays, cookie expiry, log
        /// durations and transfer progress. The real clock by default; tests set a
        /// `ManualClock` (from `KringleTesting`) and move it themselves.
        public var clock: any KringleClock = SystemClock()
        /// What log events, error descriptions and `curlDescription` never show: secret
        /// headers, secret query items and URL passwords. The defaults always apply; add
        /// names with `redaction.additionalHeaderNames` and `redaction.additionalQueryItemNames`.
        public var redaction = Redaction()
        /// How much a response may cost: bytes in memory, bytes written by a download, bytes
        /// of an error's body kept, and the decompression ratio. Both transports stop a
        /// transfer the moment it crosses one.
        public var responseLimits = ResponseLimits()
        /// Keeps responses and answers from them as RFC 9111 allows (see ``HTTPCache``):
        /// `.memory(maximumBytes:)` or `.directory(_:maximumBytes:)`. None by default.
        public var cache: HTTPCache?

        /// The default configuration.
        public init() {}
    }
}
