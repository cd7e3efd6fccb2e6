/// What a close frame says (RFC 6455 §5.5.1): a status code and a reason, or neither.
@_spi(KringleInternals)
public struct WebSocketCloseFrame: Sendable, Equatable {
    /// The status code; `nil` when the frame had no payload, which a receiver reports as
    /// ``WebSocketCloseCode/noStatusReceived`` (§7.1.5).
    public var code: WebSocketCloseCode?
    /// The reason, UTF-8 on the wire, for people rather than programs (§5.5.1); empty when
    /// there is none.
    public var reason: String

    /// The longest reason that fits a close frame: a control frame carries at most 125 bytes
    /// (§5.5), two of them the code.
    static let maximumReasonLength = 123

    /// A close frame with `code` and `reason`.
    package init(code: WebSocketCloseCode?, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// The close frame that `payload` encodes (§5.5.1): empty, or a two-byte big-endian code
    /// that may be sent (§7.4: ``WebSocketCloseCode/isSendable``) and a UTF-8 reason.
    ///
    /// - Throws: ``WebSocketProtocolError/invalidClosePayload`` for a single byte,
    ///   ``WebSocketProtocolError/invalidCloseCode(_:)`` for a code no endpoint may send,
    ///   ``WebSocketProtocolError/invalidUTF8`` for a reason that is not UTF-8.
    init(parsing payload: [UInt8]) throws(WebSocketProtocolError) {
        guard !payload.isEmpty else {
            self.init(code: nil)
            return
        }
        guard payload.count >= 2 else { throw .invalidClosePayload }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isSendable else { throw .invalidCloseCode(code.rawValue) }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else { throw .invalidUTF8 }
        self.init(code: code, reason: reason)
    }

    /// The payload of a close frame that says this (§5.5.1): the code, big-endian, then the
    /// reason; empty when there is no code, since a reason needs one.
    ///
    /// A reason longer than ``maximumReasonLength`` bytes is cut after the last whole code point
    /// that fits, so that the frame stays within a control frame's 125 bytes.
    func payload() -> [UInt8] {
        guard let code else { return [] }
        var reasonBytes = Array(reason.utf8)
        if reasonBytes.count > Self.maximumReasonLength {
            var end = Self.maximumReasonLength
            // Back up over continuation bytes (10xxxxxx) to the start of a character.
            while end > 0 && reasonBytes[end] & 0xC0 == 0x80 { end -= 1 }
            reasonBytes.removeSubrange(end...)
        }
        return [UInt8(truncatingIfNeeded: code.rawValue >> 8), UInt8(truncatingIfNeeded: code.rawValue)] + reasonBytes
    }
}
