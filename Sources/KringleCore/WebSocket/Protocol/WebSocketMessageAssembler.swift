/// Joins the fragments of WebSocket messages (RFC 6455 §5.4) and reads control frames, one
/// frame at a time as the parser returns them.
///
/// ```swift
/// var assembler = WebSocketMessageAssembler(maximumMessageLength: 1 << 20)
/// while let frame = try parser.nextFrame() {
///     if let event = try assembler.consume(frame) { … }
/// }
/// ```
///
/// The rules it keeps: a message is a text or binary frame, then continuation frames, the
/// last with FIN (§5.4); control frames may come between fragments and are returned at once;
/// a continuation with no message begun, or a new message before the last one ended, breaks
/// the protocol. A text message must be UTF-8 (§8.1), checked fragment by fragment so that
/// the first one that cannot begin valid text fails the connection. A compressed message
/// (RSV1 on its first frame, RFC 7692 §6) is returned whole and compressed: its UTF-8, and the
/// length it inflates to, are the inflater's to check.
///
/// After it throws, the connection is to be failed (§7.1.7); the assembler is not used again.
@_spi(KringleInternals)
public struct WebSocketMessageAssembler: Sendable {
    /// The longest message it joins, in payload bytes as they arrive (compressed ones
    /// compressed).
    let maximumMessageLength: Int

    /// The message begun and not yet ended.
    private var message: Message?

    /// An assembler of messages up to `maximumMessageLength` bytes.
    public init(maximumMessageLength: Int) {
        self.maximumMessageLength = maximumMessageLength
    }

    /// Takes the next frame in.
    ///
    /// - Returns: The message the frame ends, or the control frame itself; `nil` for a
    ///   fragment that does not end its message.
    /// - Throws: ``WebSocketProtocolError/unexpectedContinuation``,
    ///   ``WebSocketProtocolError/interleavedDataFrame``,
    ///   ``WebSocketProtocolError/messageTooLong(_:)`` (the length reached),
    ///   ``WebSocketProtocolError/invalidUTF8`` for text, and a close frame's errors
    ///   (``WebSocketCloseFrame/init(parsing:)``).
    public mutating func consume(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> WebSocketEvent? {
        var continued: Message
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return .close(try WebSocketCloseFrame(parsing: frame.payload))
        case .text, .binary:
            guard message == nil else { throw .interleavedDataFrame }
            continued = Message(opcode: frame.opcode, isCompressed: frame.isCompressed)
        case .continuation:
            guard message != nil else { throw .unexpectedContinuation }
            // RFC 7692 §6.1: RSV1 belongs on the first frame only.
            guard !frame.isCompressed else { throw .reservedBits }
            // Taken out, the only reference to its payload, which then grows in place.
            continued = message.take()!
        }
        try continued.append(frame.payload, maximumLength: maximumMessageLength)
        guard frame.isFinal else {
            message = continued
            return nil
        }
        return try continued.event()
    }
}

extension WebSocketMessageAssembler {
    /// A data message being joined: its first frame's opcode and RSV1, its payload so far.
    private struct Message: Sendable {
        let opcode: WebSocketOpcode
        let isCompressed: Bool
        private var payload: [UInt8] = []
        /// Checks an uncompressed text message's fragments as they come; unused otherwise.
        private var validator = UTF8Validator()

        init(opcode: WebSocketOpcode, isCompressed: Bool) {
            self.opcode = opcode
            self.isCompressed = isCompressed
        }

        /// Adds a fragment, checking that the message stays within `maximumLength` and, for
        /// uncompressed text, that its bytes can still begin valid UTF-8 (§8.1).
        mutating func append(_ fragment: [UInt8], maximumLength: Int) throws(WebSocketProtocolError) {
            let length = payload.count + fragment.count
            guard length <= maximumLength else { throw .messageTooLong(length) }
            if opcode == .text && !isCompressed {
                guard validator.consume(fragment) else { throw .invalidUTF8 }
            }
            // A message's first fragment, usually its only one, is shared rather than copied.
            if payload.isEmpty {
                payload = fragment
            } else {
                payload.append(contentsOf: fragment)
            }
        }

        /// The message, now that it has ended: text must not end inside a character.
        func event() throws(WebSocketProtocolError) -> WebSocketEvent {
            if isCompressed { return .compressed(opcode: opcode, payload: payload) }
            guard opcode == .text else { return .binary(payload) }
            guard validator.isComplete else { throw .invalidUTF8 }
            // Checked as it came, so decoding replaces nothing.
            return .text(String(decoding: payload, as: UTF8.self))
        }
    }
}
