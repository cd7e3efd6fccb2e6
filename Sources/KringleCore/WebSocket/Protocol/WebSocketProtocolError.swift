/// A way in which a peer broke the WebSocket protocol (RFC 6455). Any of them fails the
/// connection (§7.1.7): the endpoint sends a close frame with ``closeCode`` and stops
/// reading.
public enum WebSocketProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    /// RSV2 or RSV3 set, or RSV1 set without the extension that defines it (permessage-deflate,
    /// RFC 7692), or on a control frame or a continuation frame, where even that extension
    /// forbids it (§5.2; RFC 7692 §6).
    case reservedBits
    /// An opcode RFC 6455 reserves, 0x3-0x7 or 0xB-0xF (§5.2).
    case reservedOpcode(UInt8)
    /// A control frame whose payload is over 125 bytes long (§5.5); the length it declared.
    case controlFrameTooLong(Int)
    /// A control frame without FIN: control frames cannot be fragmented (§5.5).
    case fragmentedControlFrame
    /// A masked frame from the server, which must never mask (§5.1).
    case maskedFrameFromServer
    /// An unmasked frame from the client, which must mask every frame (§5.1).
    case unmaskedFrameFromClient
    /// A 64-bit payload length with its most significant bit set, which must be 0 (§5.2).
    case invalidPayloadLength(UInt64)
    /// A frame whose payload is longer than the endpoint accepts; the length it declared,
    /// read from its header before any of the payload.
    case frameTooLong(UInt64)
    /// A message whose fragments together are longer than the endpoint accepts; the length
    /// they reached.
    case messageTooLong(Int)
    /// A continuation frame with no fragmented message in progress (§5.4).
    case unexpectedContinuation
    /// A new text or binary frame before the final fragment of the message in progress: the
    /// fragments of messages must not be interleaved (§5.4).
    case interleavedDataFrame
    /// A text message, or a close frame's reason, that is not UTF-8 (§5.6, §8.1).
    case invalidUTF8
    /// A close frame with a status code no endpoint may send (§7.4): 1004-1006, 1015, one
    /// below 1000 or in 1016-2999, or 5000 and over.
    case invalidCloseCode(UInt16)
    /// A close frame whose payload is one byte: too short for a status code (§5.5.1).
    case invalidClosePayload
    /// A compressed message that does not inflate as raw deflate data (RFC 7692 §7.2.2).
    case invalidCompressedData

    /// The status code for the close frame that answers the error (§7.4.1): 1009 (message
    /// too big) for a frame or message over the limit, 1007 (invalid frame payload data) for
    /// text that is not UTF-8, 1002 (protocol error) for the rest.
    public var closeCode: WebSocketCloseCode {
        switch self {
        case .frameTooLong, .messageTooLong: .messageTooBig
        case .invalidUTF8: .invalidFramePayloadData
        default: .protocolError
        }
    }

    /// What the peer did wrong and the rule it broke.
    public var description: String {
        switch self {
        case .reservedBits:
            "the peer set a reserved bit (RSV2 or RSV3, or RSV1 with no extension negotiated or on a control or continuation frame; RFC 6455 §5.2)"
        case .reservedOpcode(let opcode):
            "the peer sent a frame with the reserved opcode 0x\(String(opcode, radix: 16, uppercase: true)) (RFC 6455 §5.2)"
        case .controlFrameTooLong(let length):
            "the peer sent a control frame of \(length) bytes; the limit is 125 (RFC 6455 §5.5)"
        case .fragmentedControlFrame:
            "the peer sent a control frame without FIN: control frames cannot be fragmented (RFC 6455 §5.5)"
        case .maskedFrameFromServer:
            "the server sent a masked frame; a server must not mask (RFC 6455 §5.1)"
        case .unmaskedFrameFromClient:
            "the client sent an unmasked frame; a client must mask every frame (RFC 6455 §5.1)"
        case .invalidPayloadLength(let length):
            "the peer sent a 64-bit payload length with its most significant bit set (\(length)) (RFC 6455 §5.2)"
        case .frameTooLong(let length):
            "the peer sent a frame of \(length) bytes, longer than the maximum message length allows"
        case .messageTooLong(let length):
            "the peer sent a message of at least \(length) bytes, longer than the maximum message length allows"
        case .unexpectedContinuation:
            "the peer sent a continuation frame with no fragmented message in progress (RFC 6455 §5.4)"
        case .interleavedDataFrame:
            "the peer began a new message before finishing the fragmented one in progress (RFC 6455 §5.4)"
        case .invalidUTF8:
            "the peer sent text that is not valid UTF-8 (RFC 6455 §8.1)"
        case .invalidCloseCode(let code):
            "the peer sent a close frame with the status code \(WebSocketCloseCode(rawValue: code)), which no endpoint may send (RFC 6455 §7.4)"
        case .invalidClosePayload:
            "the peer sent a close frame with a one-byte payload, too short for a status code (RFC 6455 §5.5.1)"
        case .invalidCompressedData:
            "the peer sent a compressed message that does not inflate (RFC 7692 §7.2.2)"
        }
    }
}
