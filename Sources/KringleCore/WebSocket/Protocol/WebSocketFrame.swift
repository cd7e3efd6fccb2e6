/// One WebSocket frame (RFC 6455 §5.2) as the parser returns it and the encoder takes it:
/// the FIN and RSV1 bits, the opcode and the payload, unmasked. The masking key is not
/// kept: masking belongs to the wire (§5.3), and the encoder takes a key of its own.
@_spi(KringleInternals)
public struct WebSocketFrame: Sendable, Equatable {
    /// FIN: whether this is the last fragment of its message (§5.2, §5.4). Control frames are
    /// always final.
    public var isFinal: Bool
    /// RSV1, which the permessage-deflate extension uses to mark the first frame of a
    /// compressed message (RFC 7692 §6). Only set when that extension was negotiated.
    public var isCompressed: Bool
    /// What the frame holds.
    public var opcode: WebSocketOpcode
    /// The application data, unmasked (§5.2 "Payload data"; no extension data without an
    /// extension that defines it).
    public var payload: [UInt8]

    /// A frame; by default the final one of its message and not compressed.
    public init(isFinal: Bool = true, isCompressed: Bool = false, opcode: WebSocketOpcode, payload: [UInt8]) {
        self.isFinal = isFinal
        self.isCompressed = isCompressed
        self.opcode = opcode
        self.payload = payload
    }
}
