import Foundation

extension LoopbackServer.Response {
    /// A UTF-8 `text/plain` response.
    ///
    /// ```swift
    /// let server = try LoopbackServer { _ in .text("pong") }
    /// ```
    ///
    /// - Parameters:
    ///   - string: the body text.
    ///   - status: the status code; 200 by default.
    public static func text(_ string: String, status: Int = 200) -> Self {
        Self(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data(string.utf8))
    }

    /// An `application/json` response whose body is `string` as given.
    ///
    /// ```swift
    /// return .json(#"{"id": 7}"#, status: 201)
    /// ```
    ///
    /// - Parameters:
    ///   - string: JSON text, sent as UTF-8 without validation (so tests can send broken JSON).
    ///   - status: the status code; 200 by default.
    public static func json(_ string: String, status: Int = 200) -> Self {
        Self(status: status, headers: [("Content-Type", "application/json")], body: Data(string.utf8))
    }

    /// A response carrying raw bytes.
    ///
    /// ```swift
    /// return .data(Data(repeating: 0, count: 1 << 20))
    /// ```
    ///
    /// - Parameters:
    ///   - data: the body.
    ///   - contentType: the `Content-Type` value; `application/octet-stream` by default.
    ///   - status: the status code; 200 by default.
    public static func data(_ data: Data, contentType: String = "application/octet-stream", status: Int = 200) -> Self {
        Self(status: status, headers: [("Content-Type", contentType)], body: data)
    }

    /// A redirect to `location` with an empty body.
    ///
    /// ```swift
    /// return .redirect(to: "/new-home", status: 301)
    /// ```
    ///
    /// - Parameters:
    ///   - location: the `Location` value, relative or absolute (RFC 9110 §10.2.2).
    ///   - status: 301, 302, 303, 307 or 308; 302 by default.
    public static func redirect(to location: String, status: Int = 302) -> Self {
        Self(status: status, headers: [("Location", location)])
    }

    /// A response with only a status code and an empty body.
    ///
    /// ```swift
    /// return .status(204)
    /// ```
    public static func status(_ code: Int) -> Self {
        Self(status: code)
    }

    /// A copy with one more header field appended (an existing field of that name stays).
    ///
    /// ```swift
    /// return .text("hi").addingHeader("Set-Cookie", "a=1").addingHeader("Set-Cookie", "b=2")
    /// ```
    public func addingHeader(_ name: String, _ value: String) -> Self {
        var copy = self
        copy.headers.append((name, value))
        return copy
    }

    /// A copy with one more trailer field, sent after the last chunk; the body goes out
    /// chunked: the behavior becomes ``Behavior/chunked(chunkSize:)`` unless it already is.
    ///
    /// ```swift
    /// return .text("payload").addingTrailer("X-Checksum", "abc123")
    /// ```
    public func addingTrailer(_ name: String, _ value: String) -> Self {
        var copy = self
        copy.trailers.append((name, value))
        if case .chunked = copy.behavior {} else { copy.behavior = .chunked() }
        return copy
    }

    /// A copy sent with `statusLine` (without its line ending) in place of the usual
    /// `HTTP/1.1 <status> <reason phrase>`; see ``statusLine``.
    ///
    /// ```swift
    /// return .text("ok").withStatusLine("HTTP/1.1 200")
    /// ```
    public func withStatusLine(_ statusLine: String) -> Self {
        var copy = self
        copy.statusLine = statusLine
        return copy
    }

    /// A copy that is sent `seconds` later; other connections are not held up.
    ///
    /// ```swift
    /// return .text("slow").delayed(by: 2)
    /// ```
    public func delayed(by seconds: TimeInterval) -> Self {
        var copy = self
        copy.delay = seconds
        return copy
    }

    /// A copy that is never sent: the server waits until the client hangs up (counted in
    /// ``Statistics/connectionsClosedByPeer``) or the server shuts down. For a server that
    /// does not answer, however long a slow machine takes to give up on it.
    ///
    /// ```swift
    /// return .text("never").heldUntilHangUp()
    /// ```
    public func heldUntilHangUp() -> Self {
        delayed(by: .infinity)
    }

    /// A copy that is written with `behavior`.
    ///
    /// ```swift
    /// return .text("abcdef").withBehavior(.closeMidBody)
    /// ```
    public func withBehavior(_ behavior: LoopbackServer.Behavior) -> Self {
        var copy = self
        copy.behavior = behavior
        return copy
    }
}

extension LoopbackServer.Response {
    /// Accepts a WebSocket opening handshake (RFC 6455 §4.2.2), then plays `peer` on the
    /// connection.
    ///
    /// ```swift
    /// let server = try LoopbackServer { request in
    ///     request.path == "/chat" ? .webSocket(.echo, subprotocol: "chat.v2") : .status(404)
    /// }
    /// let socket = try await client.webSocket(Chat.room("lobby")).value  // ws://127.0.0.1:<port>/chat
    /// ```
    ///
    /// The answer is `101 Switching Protocols` with `Upgrade: websocket`, `Connection:
    /// Upgrade`, `Sec-WebSocket-Accept` (computed from the request's `Sec-WebSocket-Key`
    /// when it is sent, unless the handler set one), `Sec-WebSocket-Protocol` when
    /// `subprotocol` is given, then `headers`. They are ordinary ``headers``: a handler may
    /// change or remove them to test a client's checks of the `101` (§4.1), and the
    /// subprotocol is sent even if the client did not offer it. No extension is ever
    /// accepted: the server answers without `Sec-WebSocket-Extensions`.
    ///
    /// A request that is not an opening handshake (§4.2.1: a GET of HTTP/1.1 or later with
    /// `Upgrade: websocket`, `Connection: Upgrade`, a `Sec-WebSocket-Key` of 16 bytes in
    /// base64 and `Sec-WebSocket-Version: 13`) gets `400 Bad Request` instead, with
    /// `Sec-WebSocket-Version: 13` when the version was wrong (§4.4), and the connection
    /// closes. The `101` counts in ``LoopbackServer/Statistics/responsesCompleted``.
    ///
    /// - Parameters:
    ///   - peer: what the server does once the connection is open.
    ///   - subprotocol: the `Sec-WebSocket-Protocol` to answer with, or `nil` for none.
    ///   - headers: more header fields for the `101`, such as `Set-Cookie`, in order.
    public static func webSocket(
        _ peer: LoopbackServer.WebSocketPeer,
        subprotocol: String? = nil,
        headers: [(String, String)] = []
    ) -> Self {
        var fields = [("Upgrade", "websocket"), ("Connection", "Upgrade")]
        if let subprotocol { fields.append(("Sec-WebSocket-Protocol", subprotocol)) }
        return Self(status: 101, headers: fields + headers, behavior: .webSocket(peer))
    }
}
