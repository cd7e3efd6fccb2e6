extension LoopbackServer {
    /// How a ``Response`` is written, including ways to fail on purpose.
    ///
    /// ```swift
    /// let server = try LoopbackServer { request in
    ///     switch request.path {
    ///     case "/truncated": return .text(String(repeating: "x", count: 1000)).withBehavior(.closeMidBody)
    ///     case "/hang-up": return .status(200).withBehavior(.closeWithoutResponse)
    ///     default: return .text("ok").withBehavior(.chunked(chunkSize: 4))
    ///     }
    /// }
    /// ```
    public enum Behavior: Sendable, Equatable {
        /// Send the whole response; keep the connection open if both sides allow it.
        case normal

        /// Send the body with the chunked transfer coding (RFC 9112 §7.1), in chunks of at
        /// most `chunkSize` bytes, instead of with a `Content-Length`. HTTP/1.0 clients cannot
        /// decode chunks, so they get the body delimited by closing the connection instead.
        case chunked(chunkSize: Int = 16_384)

        /// Send the header section with the full `Content-Length`, then the first half of the
        /// body, then close the connection: the client sees a truncated body. Give it a
        /// non-empty body, otherwise nothing is missing.
        case closeMidBody

        /// Close the connection (orderly FIN) without sending anything.
        case closeWithoutResponse

        /// Reset the connection (TCP RST) without sending anything.
        case resetWithoutResponse
    }
}
