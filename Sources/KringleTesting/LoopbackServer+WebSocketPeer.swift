import Foundation

extension LoopbackServer {
    /// What the server does on a WebSocket connection once it has accepted the opening
    /// handshake; see ``Response/webSocket(_:subprotocol:headers:)``.
    ///
    /// ```swift
    /// let server = try LoopbackServer { request in
    ///     switch request.path {
    ///     case "/echo": return .webSocket(.echo)
    ///     case "/quiet": return .webSocket(.silent)
    ///     default: return .webSocket(.script([.send(.text("welcome")), .receive, .close(.normalClosure, reason: "bye")]))
    ///     }
    /// }
    /// ```
    ///
    /// Whatever it plays, the server reads the client's frames as a server must (RFC 6455
    /// §5.1: every frame masked) and records them in ``LoopbackServer/webSocketTranscript``.
    /// Its own frames are never masked and never compressed: it takes up no extension the
    /// client offers. Server shutdown ends the connection at once (the client sees the TCP
    /// connection close without a close frame).
    public enum WebSocketPeer: Sendable, Equatable {
        /// Sends every text or binary message back whole, in one frame, once all its
        /// fragments have arrived; answers a ping with a pong of the same payload (§5.5.2);
        /// answers a close frame with a close frame of the same status code (§5.5.1), then
        /// closes the TCP connection (the server closes first, §7.1.1). A frame that breaks
        /// the protocol fails the connection (§7.1.7): a close frame with the error's
        /// ``/KringleCore/WebSocketProtocolError/closeCode``, then the TCP close.
        case echo

        /// Reads and discards everything after the handshake (still recorded in the
        /// transcript), never answers a ping or a close frame, and holds the connection until
        /// the client hangs up or the server shuts down: a server that went quiet, for a
        /// client's ping timeout.
        case silent

        /// Plays the steps in order, then behaves as ``echo``. A step that ends the connection
        /// (``WebSocketScriptStep/close(_:reason:)``, or the client's close frame while a
        /// step waits) ends the script there.
        case script([WebSocketScriptStep])
    }
}
