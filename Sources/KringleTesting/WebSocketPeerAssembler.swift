import Foundation
@_spi(KringleInternals) import Kringle

/// Joins the fragments of a client's messages (RFC 6455 §5.4) and reads its control frames:
/// the server's side of what Kringle's own assembler does for the client, reduced to what a
/// test server needs (no compression; a text message's UTF-8 is checked once it is whole).
///
/// After it throws, the connection is failed (§7.1.7) and it is not used again.
struct WebSocketPeerAssembler {
    typealias Event = LoopbackServer.WebSocketTranscriptEntry.Event

    /// The longest message it joins, in bytes.
    let maximumMessageLength: Int
    /// The message begun and not yet ended: its opcode and payload so far.
    private var message: (opcode: WebSocketOpcode, payload: [UInt8])?

    /// An assembler of messages up to `maximumMessageLength` bytes.
    init(maximumMessageLength: Int) {
        self.maximumMessageLength = maximumMessageLength
    }

    /// Takes the next frame in.
    ///
    /// - Returns: the message the frame ends, or the control frame; `nil` for a fragment that
    ///   does not end its message.
    /// - Throws: a continuation with no message begun, a new message before the last ended
    ///   (§5.4), a message over the limit, text that is not UTF-8 (§8.1), a malformed close
    ///   frame (§5.5.1, §7.4).
    mutating func consume(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> Event? {
        var payload: [UInt8]
        let opcode: WebSocketOpcode
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return try Self.close(frame.payload)
        case .text, .binary:
            guard message == nil else { throw .interleavedDataFrame }
            (opcode, payload) = (frame.opcode, frame.payload)
        case .continuation:
            guard let begun = message else { throw .unexpectedContinuation }
            message = nil
            (opcode, payload) = begun
            payload += frame.payload
        }
        guard payload.count <= maximumMessageLength else { throw .messageTooLong(payload.count) }
        guard frame.isFinal else {
            message = (opcode, payload)
            return nil
        }
        guard opcode == .text else { return .message(.binary(Data(payload))) }
        guard let text = String(validating: payload, as: UTF8.self) else { throw .invalidUTF8 }
        return .message(.text(text))
    }

    /// What a close frame's payload says (§5.5.1): nothing, or a status code an endpoint may
    /// send (§7.4) and a UTF-8 reason.
    private static func close(_ payload: [UInt8]) throws(WebSocketProtocolError) -> Event {
        guard !payload.isEmpty else { return .close(nil, reason: "") }
        guard payload.count >= 2 else { throw .invalidClosePayload }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isSendable else { throw .invalidCloseCode(code.rawValue) }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else { throw .invalidUTF8 }
        return .close(code, reason: reason)
    }
}
