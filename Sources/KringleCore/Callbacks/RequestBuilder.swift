import Foundation

/// A request described piece by piece, for ``NetworkClient/sendRequest(_:completion:)-(RequestBuilder,_)``.
///
/// ```swift
/// let builder = RequestBuilder(method: .post, url: URL(string: "https://cats.example/cats")!,
///                              queryItems: [URLQueryItem(name: "notify", value: "yes")],
///                              body: .form([("name", "Tom")]))
/// ```
public struct RequestBuilder: Sendable {
    /// The method.
    public var method: HTTPMethod
    /// The URL, to which ``queryItems`` are added.
    public var url: URL
    /// Query items added after the client's default ones; unencoded.
    public var queryItems: [URLQueryItem]
    /// Headers; they win over the client's default headers.
    public var headers: [String: String]
    /// The body, if any.
    public var body: RequestBody?
    /// How ``body`` is compressed before it is sent, with the `Content-Encoding` that says
    /// so; `nil` sends it as it is. Bodies below the compression's
    /// ``RequestCompression/minimumBodySize`` are sent as they are.
    ///
    /// ```swift
    /// var builder = RequestBuilder(method: .post, url: ingestURL, body: .json(batch))
    /// builder.compression = .gzip
    /// client.sendRequest(builder) { result in print(result) }
    /// ```
    public var compression: RequestCompression?
    /// Seconds the call may take in total, redirects and retries included; `nil` (the
    /// default) leaves it to the client's
    /// ``NetworkClient/Configuration-swift.struct/timeout``.
    public var timeout: TimeInterval?

    /// Creates a description.
    public init(
        method: HTTPMethod = .get,
        url: URL,
        queryItems: [URLQueryItem] = [],
        headers: [String: String] = [:],
        body: RequestBody? = nil,
        compression: RequestCompression? = nil,
        timeout: TimeInterval? = nil
    ) {
        self.method = method
        self.url = url
        self.queryItems = queryItems
        self.headers = headers
        self.body = body
        self.compression = compression
        self.timeout = timeout
    }
}

extension RequestBuilder: Endpoint {
    /// The builder's URL: it is an endpoint with an empty path.
    public var baseURL: URL { url }
    /// Empty: the whole path is in ``url``.
    public var path: String { "" }
}
