/// What a WebSocket frame holds, the 4-bit opcode of its first byte (RFC 6455 §5.2, §11.8).
/// The other ten values, 0x3-0x7 and 0xB-0xF, are reserved; a frame that uses one fails the
/// connection (§5.2), so they have no case.
@_spi(KringleInternals)
public enum WebSocketOpcode: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// A fragment after the first of a message (§5.4).
    case continuation = 0x0
    /// The first or only frame of a text message, UTF-8 (§5.6).
    case text = 0x1
    /// The first or only frame of a binary message (§5.6).
    case binary = 0x2
    /// A close frame (§5.5.1).
    case close = 0x8
    /// A ping, which the peer answers with a pong (§5.5.2).
    case ping = 0x9
    /// A pong, the answer to a ping or unasked as a heartbeat (§5.5.3).
    case pong = 0xA

    /// Whether it is a control frame's opcode (§5.5: the most significant bit of the
    /// opcode is set): close, ping, pong. Control frames are never fragmented and carry at most
    /// 125 bytes.
    @_spi(KringleInternals)
    public var isControl: Bool { rawValue & 0x8 != 0 }

    /// Its name and value, such as `text (0x1)`.
    @_spi(KringleInternals)
    public var description: String {
        let name =
            switch self {
            case .continuation: "continuation"
            case .text: "text"
            case .binary: "binary"
            case .close: "close"
            case .ping: "ping"
            case .pong: "pong"
            }
        return "\(name) (0x\(String(rawValue, radix: 16, uppercase: true)))"
    }
}
