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
