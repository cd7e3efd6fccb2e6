import Foundation
@_spi(KringleInternals) import KringlePromise

/// One open WebSocket connection as a ``WebSocket`` uses it, whatever carries it: Kringle's
/// own protocol over curl's socket (``WebSocketSession``) or the system's
/// (``URLSessionWebSocketChannel``).
package protocol WebSocketChannel: AnyObject, Sendable {
    var url: URL { get }
    /// The subprotocol the server chose, if any.
    var subprotocol: String? { get }
    /// Whether `permessage-deflate` is in use, as far as the channel knows.
    var isCompressed: Bool { get }
    /// The server's close frame, once it came.
    var closeFrame: WebSocketCloseFrame? { get }
    /// Bytes of received messages waiting for the reader.
    var bufferedBytes: Int { get }

    func send(_ message: WebSocketMessage) -> Promise<Void>
    /// The next message; `nil` after a closing handshake.
    func receive() -> Promise<WebSocketMessage?>
    func ping() -> Promise<Void>
    func close(code: WebSocketCloseCode, reason: String) -> Promise<Void>
    /// The last reference is gone: close with 1001 (Going Away) without waiting.
    func abandon()
}

extension WebSocketSession: WebSocketChannel {}
