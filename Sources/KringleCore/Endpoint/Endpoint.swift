import Foundation

/// One place of your API, usually a case of an enum.
///
/// ```swift
/// enum CatEndpoint: Endpoint {
///     case cuddle
///     case pet(catName: String)
///     case feed(catName: String)
///
///     var baseURL: URL { URL(string: "https://cats.example/api/v2")! }
///
///     var path: String {
///         switch self {
///         case .cuddle: return "/cuddle"
///         case .pet(let name): return "/cats/\(pathSegment: name)/pet"
///         case .feed(let name): return "/cats/\(pathSegment: name)/food"
///         }
///     }
/// }
/// ```
///
/// The URL is `baseURL` joined with `path` (a trailing or leading slash on either side
/// makes no difference, and a path prefix in `baseURL` is kept), then the client's default
/// query items and this endpoint's ``queryItems``. `path` is given unencoded: spaces and
/// non-ASCII characters are percent-encoded for you, so `/cats/Tom Cat` is sent as
/// `/cats/Tom%20Cat`.
public protocol Endpoint: Sendable {
    /// The server and any path prefix, such as `https://api.example.com/v2`.
    var baseURL: URL { get }
    /// The path below ``baseURL``, unencoded.
    var path: String { get }
    /// Query items added after the client's defaults; names and values are unencoded.
    var queryItems: [URLQueryItem] { get }
    /// Headers for this endpoint; they win over the client's default headers of the same
    /// name in any case. Names are sent as written.
    var headers: [String: String] { get }
    /// Which of ``headers`` carry a credential: the client drops them when a redirect leads
    /// to another origin, as it always does `Authorization`, `Proxy-Authorization` and
    /// `Cookie`. None by default.
    var credentialHeaders: Set<String> { get }
    /// How requests to this endpoint use the client's ``HTTPCache``; ``CachePolicy/useProtocol``
    /// by default.
    var cachePolicy: CachePolicy { get }
    /// How request bodies to this endpoint are compressed (gzip or deflate, with
    /// `Content-Encoding`); `nil`, the default, sends them as they are.
    var compression: RequestCompression? { get }
    /// Seconds a call to this endpoint may take in total, redirects, retries and the waits
    /// between them included; `nil`, the default, leaves it to the client's
    /// ``NetworkClient/Configuration-swift.struct/timeout``. A call's own `timeout` argument
    /// wins over this, which wins over the client's. Zero or less sets no limit.
    ///
    /// ```swift
    /// var timeout: TimeInterval? {
    ///     switch self {
    ///     case .report: return 120  // the server takes its time
    ///     default: return nil
    ///     }
    /// }
    /// ```
    var timeout: TimeInterval? { get }
    /// Whether each call to this endpoint carries an `Idempotency-Key` header
    /// (draft-ietf-httpapi-idempotency-key-header): a new key per call, sent unchanged on
    /// every attempt, so that a server which honours it (Stripe, Adyen, PayPal) applies a
    /// POST once however often it is retried. A request with the key may be retried by
    /// ``RetryPolicy`` whatever its method. `false` by default; a key the endpoint's
    /// ``headers`` set is kept.
    var sendsIdempotencyKey: Bool { get }
    /// Whether a GET or HEAD to this endpoint may share one exchange with identical requests
    /// in flight, on a client that coalesces
    /// (``NetworkClient/Configuration-swift.struct/coalescesRequests``); `true` by default.
    /// An endpoint whose every answer must be fresh from the server (a poll, a nonce) says
    /// `false`.
    var allowsCoalescing: Bool { get }
}

extension Endpoint {
    /// No query items.
    public var queryItems: [URLQueryItem] { [] }
    /// No headers.
    public var headers: [String: String] { [:] }
    /// None.
    public var credentialHeaders: Set<String> { [] }
    /// ``CachePolicy/useProtocol``.
    public var cachePolicy: CachePolicy { .useProtocol }
    /// `nil`: bodies are sent uncompressed.
    public var compression: RequestCompression? { nil }
    /// `nil`: the client's timeout.
    public var timeout: TimeInterval? { nil }
    /// `false`: no key, unless an interceptor asks for one (``RetryPolicy/idempotencyKeyMethods``).
    public var sendsIdempotencyKey: Bool { false }
    /// `true`: identical requests may share an exchange, on a client that coalesces.
    public var allowsCoalescing: Bool { true }
}
