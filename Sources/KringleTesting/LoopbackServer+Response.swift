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

        /// Creates a response.
        ///
        /// - Parameters:
        ///   - status: the status code; 200 by default.
        ///   - headers: header fields to send, in order.
        ///   - body: the content.
        ///   - delay: seconds to wait before sending.
        ///   - behavior: how to send it; see ``Behavior``.
        public init(
            status: Int = 200,
            headers: [(String, String)] = [],
            body: Data = Data(),
            delay: TimeInterval = 0,
            behavior: Behavior = .normal
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delay = delay
            self.behavior = behavior
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
