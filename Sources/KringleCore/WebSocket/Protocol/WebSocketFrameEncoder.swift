/// Writes WebSocket frames (RFC 6455 §5.2): the header with the shortest length form, then
/// the payload, masked when a key is given.
///
/// A client masks every frame it sends with a new random key (§5.3); a server masks none.
///
/// ```swift
/// var bytes: [UInt8] = []
/// let frame = WebSocketFrame(opcode: .text, payload: Array("Hello".utf8))
/// WebSocketFrameEncoder.encode(frame, maskingKey: WebSocketFrameEncoder.randomMaskingKey(), into: &bytes)
/// ```
@_spi(KringleInternals)
public enum WebSocketFrameEncoder {
    /// Appends `frame` to `buffer`: FIN, RSV1 (when compressed), the opcode, the mask bit,
    /// the payload length in the shortest of its three forms (7 bits up to 125, 16 bits up to
    /// 65535, 64 bits beyond, §5.2), the masking key and the payload, masked with it.
    ///
    /// The frame is written as given, even one a parser would refuse (a control frame over
    /// 125 bytes, a fragmented one, RSV1 on a continuation frame): checking what is sent
    /// belongs to the caller, and the test server uses this to send broken frames.
    ///
    /// - Parameters:
    ///   - frame: The frame to write.
    ///   - maskingKey: The key to mask the payload with (§5.3), its most significant byte
    ///     first on the wire; `nil` for an unmasked frame.
    ///   - buffer: Where the frame's bytes are appended.
    public static func encode(_ frame: WebSocketFrame, maskingKey: UInt32?, into buffer: inout [UInt8]) {
        let length = frame.payload.count
        let lengthFieldSize =
            switch length {
            case ...125: 0
            case ...0xFFFF: 2
            default: 8
            }
        buffer.reserveCapacity(buffer.count + 2 + lengthFieldSize + (maskingKey == nil ? 0 : 4) + length)

        var first = frame.opcode.rawValue
        if frame.isFinal { first |= 0x80 }
        if frame.isCompressed { first |= 0x40 }  // RSV1 (RFC 7692 §6)
        buffer.append(first)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        switch lengthFieldSize {
        case 0:
            buffer.append(maskBit | UInt8(length))
        case 2:
            buffer.append(maskBit | 126)
            buffer.append(UInt8(truncatingIfNeeded: length >> 8))
            buffer.append(UInt8(truncatingIfNeeded: length))
        default:
            buffer.append(maskBit | 127)
            let wide = UInt64(length)
            for shift in stride(from: 56, through: 0, by: -8) {
                buffer.append(UInt8(truncatingIfNeeded: wide >> UInt64(shift)))
            }
        }

        guard let maskingKey else {
            buffer.append(contentsOf: frame.payload)
            return
        }
        let key = WebSocketMaskingKey(maskingKey)
        buffer.append(contentsOf: key.bytes)
        let start = buffer.count
        buffer.append(contentsOf: frame.payload)
        buffer.withUnsafeMutableBytes { bytes in
            key.apply(to: UnsafeMutableRawBufferPointer(rebasing: bytes[start...]))
        }
    }

    /// A new masking key from the system's secure random source, as §5.3 asks: "derived
    /// from a strong source of entropy", so that a peer cannot predict it.
    public static func randomMaskingKey() -> UInt32 {
        var generator = SystemRandomNumberGenerator()
        return randomMaskingKey(using: &generator)
    }

    /// A new masking key from `generator`.
    static func randomMaskingKey(using generator: inout some RandomNumberGenerator) -> UInt32 {
        UInt32.random(in: .min ... .max, using: &generator)
    }
}
