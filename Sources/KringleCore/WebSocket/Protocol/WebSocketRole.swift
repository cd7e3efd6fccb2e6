/// Which end of a WebSocket connection reads the frames, which decides how they must be
/// masked (RFC 6455 §5.1): a client masks every frame it sends and a server none.
@_spi(KringleInternals)
public enum WebSocketRole: Sendable, Hashable {
    /// The client's end: reads frames a server sent, which must not be masked.
    case client
    /// The server's end: reads frames a client sent, which must be masked.
    case server
}
