import Foundation

/// A decoded response: the value together with the HTTP details it came with.
public struct Response<Value: Sendable>: Sendable {
    /// The decoded value.
    public var value: Value
    /// The status code of the final response (after redirects).
    public var statusCode: Int
    /// The headers of the final response.
    public var headers: HTTPHeaders
    /// The trailer fields that followed the final response's chunked body (RFC 9112 §7.1.2);
    /// empty when there were none or the transport cannot see them (see
    /// ``HTTPResponse/trailers``).
    public var trailers: HTTPHeaders
    /// The raw body the value was decoded from.
    public var body: Data
    /// The URL of the final response (after redirects).
    public var url: URL
    /// Where the call's time went: every exchange, redirect hops and retries included, with
    /// what its transport measured; `nil` for a response made by hand.
    public var metrics: RequestMetrics?
    /// Whether the final response came from the network or the client's ``HTTPCache``
    /// (``NetworkClient/Configuration-swift.struct/cache``).
    public var cacheStatus = CacheStatus.network
    /// What a description of an error carrying this response hides: the client's.
    var redaction = Redaction.default

    /// Creates a response.
    public init(
        value: Value, statusCode: Int, headers: HTTPHeaders, trailers: HTTPHeaders = HTTPHeaders(), body: Data,
        url: URL
    ) {
        self.value = value
        self.statusCode = statusCode
        self.headers = headers
        self.trailers = trailers
        self.body = body
        self.url = url
    }

    /// `value` with the status, fields and URL of a transport's response, and `body`.
    @usableFromInline
    init(value: Value, body: Data, of response: HTTPResponse) {
        self.init(
            value: value, statusCode: response.statusCode, headers: response.headers, trailers: response.trailers,
            body: body, url: response.url)
        metrics = response.callMetrics
        cacheStatus = response.cacheStatus
    }

    /// The version of HTTP the final response came in, when its transport knows it.
    public var httpVersion: HTTPVersion? {
        metrics?.exchanges.last?.metrics?.httpVersion
    }
}

extension Response where Value == Data {
    /// The raw form of a transport's response, for an error that `redaction` describes.
    package init(_ response: HTTPResponse, redaction: Redaction = .default) {
        self.init(value: response.body, body: response.body, of: response)
        self.redaction = redaction
    }
}
