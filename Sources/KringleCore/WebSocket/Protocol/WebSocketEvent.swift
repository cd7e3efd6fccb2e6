/// What the frames of a connection add up to, as the assembler returns it: a whole message
/// or a control frame (RFC 6455 §5.4-§5.6).
@_spi(KringleInternals)
public enum WebSocketEvent: Sendable, Equatable {
    /// A whole text message, checked to be UTF-8 (§5.6).
    case text(String)
    /// A whole binary message.
    case binary([UInt8])
    /// A whole message compressed by permessage-deflate (RFC 7692 §6), not yet inflated;
    /// `opcode` is `.text` or `.binary`. A text message's UTF-8 is checked after inflating,
    /// by whoever inflates it.
    case compressed(opcode: WebSocketOpcode, payload: [UInt8])
    /// A ping and its application data, which a pong must echo (§5.5.2).
    case ping([UInt8])
    /// A pong and its application data (§5.5.3).
    case pong([UInt8])
    /// A close frame (§5.5.1).
    case close(WebSocketCloseFrame)
}
