import Foundation

/// How ``NetworkClient/webSocket(_:options:)`` opens a connection and keeps it.
///
/// ```swift
/// var options = WebSocketOptions()
/// options.subprotocols = ["chat.v2"]
/// options.pingInterval = 20
/// let socket = try await client.webSocket(Chat.room("lobby"), options: options)
/// ```
public struct WebSocketOptions: Sendable {
    /// The subprotocols offered, most wanted first (`Sec-WebSocket-Protocol`, RFC 6455 §4.1);
    /// the server picks one or none, and ``WebSocket/subprotocol`` says which.
    public var subprotocols: [String] = []

    /// The longest message accepted, whole (all its fragments, after decompression): a longer
    /// one closes the connection with 1009 (Message Too Big) and ends the messages with
    /// ``KringleError/webSocketProtocolViolation(_:_:)``. 16 MiB by default.
    public var maximumMessageLength = 16 << 20

    /// How often to send a ping when the connection is open; `nil` for never. A pong must
    /// come back within ``pongTimeout``, or the connection is taken for dead: it closes and
    /// the messages end with ``KringleError/webSocketUnresponsive(_:silence:)``. Timed on the
    /// client's clock.
    public var pingInterval: TimeInterval? = nil

    /// How long a ping waits for its pong; see ``pingInterval``.
    public var pongTimeout: TimeInterval = 10

    /// Offers `permessage-deflate` (RFC 7692), which the server may take up; on by default.
    public var offersCompression = true

    /// How many bytes of received messages may wait for a slow reader before the connection
    /// stops reading from its socket (and so, through TCP, the server stops sending). At least
    /// one message always fits, however long. 1 MiB by default.
    public var receiveBufferBytes = 1 << 20

    /// How many bytes of sent messages may wait for the socket before ``WebSocket/send(_:)``
    /// waits too. 1 MiB by default.
    public var sendBufferBytes = 1 << 20

    /// How long the closing handshake may take: after ``WebSocket/close(code:reason:)`` the
    /// server's close frame is awaited this long, then the connection is dropped.
    public var closeTimeout: TimeInterval = 5

    /// Whether and how to reconnect when the connection drops; `nil` (the default) for
    /// never: the messages then end with what ended the connection.
    public var reconnection: WebSocketReconnection? = nil

    /// The defaults, as each property states.
    public init() {}
}
