import Foundation

extension LoopbackServer {
    /// What the handler wants sent back for one request.
    ///
    /// The server fills in what the handler leaves out: `Content-Length` (unless the handler
    /// set `Content-Length` or `Transfer-Encoding`, or chose ``Behavior/chunked(chunkSize:)``),
    /// `Date`, and `Connection: close` when the connection will close. Header names and values
    /// go out exactly as given, in order, one field line per tuple, so a test can also craft
    /// deliberately odd responses.
    ///
    /// ```swift
    /// var response = LoopbackServer.Response(status: 200, body: Data("hi".utf8))
    /// response.headers.append(("Set-Cookie", "a=1; Path=/"))
    /// response.headers.append(("Set-Cookie", "b=2; Path=/"))   // sent as a second line
    /// response.delay = 0.5                                        // answer after half a second
    /// ```
    public struct Response: Sendable {
        /// The status code, such as 200 or 404.
        public var status: Int

        /// Header fields in sending order; a name may repeat, and each tuple becomes its own
        /// field line (several `Set-Cookie` fields must never be folded into one).
        public var headers: [(String, String)]

        /// The content. Not sent for `HEAD` requests or for 1xx, 204 and 304 statuses, though a
        /// `HEAD` response still announces its length.
        public var body: Data

        /// Seconds to wait before sending. Only this connection waits: other connections are
        /// served meanwhile. If the client disconnects during the wait the response is dropped
        /// and counted in ``Statistics/connectionsClosedByPeer``.
        public var delay: TimeInterval

        /// How the response is put on the wire; ``Behavior/normal`` unless a test wants to
        /// exercise a failure.
        public var behavior: Behavior

        /// Trailer fields, sent after the last chunk of a ``Behavior/chunked(chunkSize:)`` body
        /// (RFC 9112 §7.1.2), in order, exactly as given; empty by default. Only a chunked body
        /// can carry them: with any other behavior, and to HTTP/1.0 clients, they are not sent.
        /// Nothing announces them (no `Trailer` header field) unless the handler adds one.
        public var trailers: [(String, String)]

        /// The status line to send instead of `HTTP/1.1 <status> <reason phrase>`, without its
        /// line ending, for testing how a client takes an odd one (`HTTP/1.1 200` without a
        /// reason phrase, `Http/1.1 200 OK`); `nil` by default. ``status`` still decides
        /// everything else: whether a body is sent, how the connection ends.
        public var statusLine: String?

        /// Creates a response.
        ///
        /// - Parameters:
        ///   - status: the status code; 200 by default.
        ///   - headers: header fields to send, in order.
        ///   - body: the content.
        ///   - delay: seconds to wait before sending.
        ///   - behavior: how to send it; see ``Behavior``.
        ///   - trailers: fields sent after a chunked body; see ``trailers``.
        public init(
            status: Int = 200,
            headers: [(String, String)] = [],
            body: Data = Data(),
            delay: TimeInterval = 0,
            behavior: Behavior = .normal,
            trailers: [(String, String)] = []
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delay = delay
            self.behavior = behavior
            self.trailers = trailers
        }

        /// The value of the first header field called `name`, compared case-insensitively.
        ///
        /// ```swift
        /// LoopbackServer.Response.json("{}").header("content-type")  // "application/json"
        /// ```
        public func header(_ name: String) -> String? {
            let wanted = name.lowercased()
            return headers.first { $0.0.lowercased() == wanted }?.1
        }
    }
}
