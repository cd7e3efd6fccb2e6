import Foundation
// An `@_exported import` declares no type, so it lives in the file of the module's main type:
// `import Kringle` alone gives users the promise API too.
@_exported import KringlePromise

/// A small, promise-based HTTP client.
///
/// ```swift
/// let client = NetworkClient()
/// client.get(CatEndpoint.cuddle, as: Cat.self)
///     .done { cat in print("Cuddled \(cat.name)") }
///     .catch { error in print(error) }
/// ```
///
/// Every call returns a ``/KringlePromise/Promise``: cancelling it (or any promise chained
/// from it) cancels the request. Responses are checked against
/// ``Configuration-swift.struct/acceptableStatusCodes`` and decoded off the caller's thread.
/// Redirects are followed by the client itself, so cookies are stored and sent on every hop.
/// The network is reached only through the ``Transport`` given at creation: by default the
/// best engine of the platform (`NetworkClient.makeDefaultTransport()`).
public final class NetworkClient: Sendable {
    /// The configuration the client was created with.
    public let configuration: Configuration
    /// The adapter that sends requests.
    public let transport: any Transport
    /// The same adapter when it takes the client's time limit and response limits itself
    /// (looked up once, not per request).
    let clientSendingTransport: (any ClientSending)?
    /// Whether ``clientSendingTransport`` ends a plain request at the attempt's ``Deadline``
    /// itself: it enforces time limits, and the client's clock is the system clock, which the
    /// transport reads too. The client then arms no timer of its own.
    let transportKeepsTime: Bool
    /// The configuration's default headers, checked and merged once for every request.
    let defaultFields: RequestAssembly.DefaultFields
    /// The exchanges identical requests share, for a client that coalesces.
    let coalescer: RequestCoalescer?
    /// Whether the client coalesces, looked up without touching ``coalescer``.
    let isCoalescing: Bool
    /// Whether the configuration has an instrument, looked up once.
    let isInstrumented: Bool
    /// Whether the configuration has a ``HostThrottle``, looked up once.
    let isThrottled: Bool
    /// The methods the interceptors want an `Idempotency-Key` on, gathered once.
    let idempotencyKeyMethods: Set<HTTPMethod>
    /// Whether ``idempotencyKeyMethods`` names any.
    let sendsIdempotencyKeys: Bool
    /// Whether the configuration has a logger, looked up once: asking the optional
    /// existential copies it (and retains what it holds) every time.
    @usableFromInline let isLogging: Bool

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - configuration: Defaults, decoding, status validation, redirects, timeout, cookies.
    ///   - transport: How requests reach the network. `NetworkClient(configuration:)`, which
    ///     `import Kringle` adds, passes the platform's best: ``CurlTransport`` on Linux,
    ///     `URLSessionTransport` on Apple platforms (`NetworkClient.makeDefaultTransport()`).
    public init(configuration: Configuration = Configuration(), transport: any Transport) {
        self.configuration = configuration
        self.transport = transport
        clientSendingTransport = transport as? any ClientSending
        transportKeepsTime = clientSendingTransport?.enforcesTimeLimits == true && configuration.clock is SystemClock
        defaultFields = RequestAssembly.DefaultFields(configuration.defaultHeaders)
        isLogging = configuration.logger != nil
        isThrottled = configuration.throttle != nil
        coalescer = configuration.coalescesRequests ? RequestCoalescer() : nil
        isCoalescing = configuration.coalescesRequests
        isInstrumented = configuration.instrument != nil
        idempotencyKeyMethods = configuration.interceptors.reduce(into: []) { $0.formUnion($1.idempotencyKeyMethods) }
        sendsIdempotencyKeys = !idempotencyKeyMethods.isEmpty
        reportIgnoredSettings()
    }
}
