import Foundation
@_spi(KringleInternals) import KringlePromise

/// A ``/KringleCore/Transport`` that answers with canned responses, for unit tests of code that uses
/// ``/KringleCore/NetworkClient``.
///
/// Stubs are matched by method and URL path; the first stub added for a pair wins until it
/// is replaced. Unmatched requests go to the fallback handler, or reject with
/// ``StubTransport/NoStubError``. Stubbed responses go through the client's validation,
/// redirects, cookies and decoding exactly like real ones. Every request is recorded.
///
/// ```swift
/// let transport = StubTransport()
/// transport.stub(.get, "/api/v2/cuddle", with: .json(#"{"name": "Tom", "mood": "purring"}"#))
/// transport.stub(.post, "/api/v2/cats/Tom/food", with: .init(status: 503))
/// let client = NetworkClient(transport: transport)
/// let cat = try client.get(CatEndpoint.cuddle, as: Cat.self).wait()
/// #expect(transport.requests.count == 1)
/// ```
public final class StubTransport: Transport {
    /// A canned answer: a response after an optional delay, or an error.
    public struct Stub: Sendable {
        /// The status code.
        public var status: Int
        /// The response headers.
        public var headers: HTTPHeaders
        /// The response body.
        public var body: Data
        /// The trailer fields that follow the body, as a chunked response would carry them.
        public var trailers: HTTPHeaders
        /// Seconds to wait before answering, on the transport's clock (the request's timeout
        /// and cancellation apply).
        public var delay: TimeInterval
        /// When set, the request fails with this error instead of answering.
        public var error: (any Error)?

        /// Creates a stubbed response.
        public init(
            status: Int = 200, headers: HTTPHeaders = [:], body: Data = Data(), trailers: HTTPHeaders = [:],
            delay: TimeInterval = 0
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.trailers = trailers
            self.delay = delay
        }

        /// A failure: the transport rejects with `error` (wrap network failures in
        /// ``/KringleCore/KringleError/transport(_:)`` to imitate a real adapter).
        public static func failure(_ error: any Error, delay: TimeInterval = 0) -> Stub {
            var stub = Stub(delay: delay)
            stub.error = error
            return stub
        }

        /// A JSON body given as text.
        public static func json(_ text: String, status: Int = 200) -> Stub {
            Stub(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
        }

        /// A JSON body encoded from `value`.
        public static func json(encoding value: some Encodable, status: Int = 200) throws -> Stub {
            Stub(status: status, headers: ["Content-Type": "application/json"], body: try JSONEncoder().encode(value))
        }
    }

    /// The error for a request no stub matches.
    public struct NoStubError: Error, CustomStringConvertible {
        /// The method of the unmatched request.
        public let method: String
        /// The URL of the unmatched request.
        public let url: URL

        /// Names the method and URL that no stub matched.
        public var description: String {
            "StubTransport has no stub for \(method) \(url.absoluteString)"
        }
    }

    private struct State {
        var stubs: [String: Stub] = [:]
        var fallback: (@Sendable (HTTPRequest) throws -> Stub)?
        var requests: [HTTPRequest] = []
    }

    private let state = Locked(State())
    private let clock: any KringleClock

    /// Creates a transport with no stubs.
    ///
    /// - Parameter clock: Where stub delays are measured: the real clock by default; give
    ///   the client's ``ManualClock`` to make delays exact.
    public init(clock: any KringleClock = .system) {
        self.clock = clock
    }

    /// Answers `method` requests whose URL path is `path` with `stub`.
    public func stub(_ method: HTTPMethod, _ path: String, with stub: Stub) {
        state.withLock { $0.stubs[Self.key(method.rawValue, path)] = stub }
    }

    /// Answers requests that no method-and-path stub matches; a throw fails the request.
    public func stub(handler: @escaping @Sendable (HTTPRequest) throws -> Stub) {
        state.withLock { $0.fallback = handler }
    }

    /// Every request received so far, in order.
    public var requests: [HTTPRequest] {
        state.withLock { $0.requests }
    }

    /// Records `request` and answers it with the matching stub, the fallback handler's
    /// stub, or a ``NoStubError``.
    ///
    /// - Returns: A promise of the stubbed response, after the stub's delay; it rejects with
    ///   the stub's error, the handler's error, or ``NoStubError``.
    public func send(_ checked: ValidatedRequest) -> Promise<HTTPResponse> {
        let request = checked.request
        let method = checked.method.rawValue
        let found = state.withLock { state -> (Stub?, (@Sendable (HTTPRequest) throws -> Stub)?) in
            state.requests.append(request)
            return (state.stubs[Self.key(method, Self.path(of: request))], state.fallback)
        }
        let stub: Stub
        do {
            guard let chosen = try found.0 ?? found.1?(request) else {
                return Promise(error: NoStubError(method: method, url: request.url))
            }
            stub = chosen
        } catch {
            return Promise(error: error)
        }
        let response = HTTPResponse(
            statusCode: stub.status, headers: stub.headers, trailers: stub.trailers, body: stub.body, url: request.url)
        guard stub.delay > 0 else {
            return stub.error.map { Promise(error: $0) } ?? Promise(response)
        }
        return Promise(()).delay(stub.delay, clock: clock).map { _ in
            if let error = stub.error { throw error }
            return response
        }
    }

    /// The decoded path as the endpoint gave it (`URL.path` would drop a trailing slash).
    private static func path(of request: HTTPRequest) -> String {
        URLComponents(url: request.url, resolvingAgainstBaseURL: true)?.path ?? request.url.path
    }

    private static func key(_ method: String, _ path: String) -> String {
        method.uppercased() + " " + (path.isEmpty ? "/" : path)
    }
}
