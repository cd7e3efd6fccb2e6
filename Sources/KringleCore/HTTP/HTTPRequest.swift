import Foundation

/// An HTTP request: what ``NetworkClient`` hands its interceptors and what a ``Transport``
/// sends, the counterpart of ``HTTPResponse``.
///
/// A plain value, the same on every platform: the fields keep their order and repeats
/// (``HTTPHeaders``), the URL is never missing, and nothing about it depends on
/// FoundationNetworking, which a process that never uses `URLSession` does not load on
/// Linux. `URLSessionTransport` converts it to a `URLRequest` (`URLRequest(_:)`), and
/// `HTTPRequest(_:)` makes one from a `URLRequest` (both in `KringleURLSession`).
///
/// ```swift
/// var request = HTTPRequest(url: URL(string: "https://cats.example/cats")!, method: .post)
/// request.headers["Authorization"] = "Bearer a1"
/// request.body = Data(#"{"name":"Tom"}"#.utf8)
/// print(request.curlDescription)
/// ```
public struct HTTPRequest: Sendable, Hashable {
    /// The URL the request goes to.
    public var url: URL
    /// The method, `GET` unless set.
    public var method: HTTPMethod
    /// The header fields, in the order they are sent.
    public var headers: HTTPHeaders
    /// The body, or `nil` for none.
    public var body: Data?
    /// The request's time limit in seconds, 60 unless set; zero, negative or infinite means
    /// none. ``Transport/send(_:)-(ValidatedRequest)`` ends the whole exchange at it;
    /// ``Transport/transfer(_:)``, which may rightly take minutes, takes it as the longest
    /// the transfer may stay silent. A ``NetworkClient`` sets it from its
    /// ``NetworkClient/Configuration-swift.struct/timeout`` and keeps its own deadline.
    public var timeout: TimeInterval
    /// How the request uses the client's ``HTTPCache``, when the call and the endpoint leave
    /// it to the request (both say ``CachePolicy/useProtocol``).
    public var cachePolicy: CachePolicy

    /// The time a request may take unless it says otherwise.
    public static let defaultTimeout: TimeInterval = 60

    /// Creates a request.
    public init(
        url: URL, method: HTTPMethod = .get, headers: HTTPHeaders = HTTPHeaders(), body: Data? = nil,
        timeout: TimeInterval = HTTPRequest.defaultTimeout, cachePolicy: CachePolicy = .useProtocol
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.cachePolicy = cachePolicy
    }
}
