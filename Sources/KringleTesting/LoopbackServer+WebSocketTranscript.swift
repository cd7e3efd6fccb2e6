import Foundation

extension LoopbackServer {
    /// One thing a WebSocket client sent, as the server received it; see
    /// ``LoopbackServer/webSocketTranscript``.
    ///
    /// ```swift
    /// #expect(server.webSocketTranscript.map(\.event) == [.message(.text("hi")), .close(.normalClosure, reason: "")])
    /// ```
    public struct WebSocketTranscriptEntry: Sendable, Equatable {
        /// The connection it arrived on, as ``Request/connectionID`` numbers them.
        public var connectionID: Int
        /// What arrived.
        public var event: Event

        /// An entry, for comparing with the transcript.
        ///
        /// - Parameters:
        ///   - connectionID: the connection it arrived on.
        ///   - event: what arrived.
        public init(connectionID: Int, event: Event) {
            self.connectionID = connectionID
            self.event = event
        }

        /// What a client sent: a whole message, a control frame, or frames that broke the
        /// protocol.
        public enum Event: Sendable, Equatable {
            /// A text or binary message, whole, its fragments joined (RFC 6455 §5.4).
            case message(WebSocketMessage)
            /// A ping and its payload (§5.5.2).
            case ping([UInt8])
            /// A pong and its payload (§5.5.3).
            case pong([UInt8])
            /// A close frame: its status code (`nil` when it had no payload) and reason
            /// (§5.5.1).
            case close(WebSocketCloseCode?, reason: String)
            /// Frames that broke the protocol, such as an unmasked frame (§5.1) or text that is
            /// not UTF-8 (§8.1). The server fails the connection with the error's close code;
            /// nothing after it is recorded.
            case protocolViolation(WebSocketProtocolError)
        }
    }
}
