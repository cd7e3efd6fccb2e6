/// The status code of a WebSocket close frame, why an endpoint closed the connection
/// (RFC 6455 §7.4).
///
/// The codes RFC 6455 defines are static members (§7.4.1); any other is made from its number.
/// Codes 3000-3999 are registered with IANA for libraries and frameworks, 4000-4999 are for
/// private use between applications (§7.4.2).
///
/// ```swift
/// try await socket.close(code: .normalClosure, reason: "done")
/// if closure.code == .goingAway { … }
/// let custom = WebSocketCloseCode(rawValue: 4001)  // an application's own
/// ```
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The two-byte number sent on the wire.
    public var rawValue: UInt16

    /// The code with the number `rawValue`, whether or not RFC 6455 defines it.
    ///
    /// - Parameter rawValue: The status code; see ``isSendable`` for the ones a close frame
    ///   may carry.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the endpoint is going away, such as a server shutting down or a browser leaving
    /// the page.
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the endpoint received a frame that breaks the protocol.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: the endpoint received a kind of data it cannot accept, such as binary data when
    /// it understands only text.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: the close frame carried no status code. Never sent: a close frame without a
    /// code is reported with this one (§7.1.5).
    public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
    /// 1006: the connection ended without a close frame. Never sent: it stands for a
    /// connection that was lost (§7.1.5).
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    /// 1007: a message's data did not match its type, such as a text message that was not
    /// UTF-8.
    public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message broke the endpoint's policy; the generic code when no other fits.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message was too big for the endpoint to process.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1010: the client closed because the server did not negotiate an extension the client
    /// needs; the reason names it.
    public static let mandatoryExtension = WebSocketCloseCode(rawValue: 1010)
    /// 1011: the server met a condition that kept it from fulfilling the request.
    public static let internalServerError = WebSocketCloseCode(rawValue: 1011)

    /// Whether an endpoint may send this code in a close frame, and so whether one received
    /// in a close frame is valid: 1000-1003 and 1007-1014 (defined by RFC 6455 §7.4.1 or
    /// registered with IANA since), 3000-4999 (§7.4.2).
    ///
    /// Not sendable: below 1000 (unused), 1004 (reserved), 1005, 1006 and 1015 (which stand
    /// for what happened to a connection and must never be sent), 1016-2999 (reserved for
    /// future revisions of the protocol) and 5000 and over.
    public var isSendable: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// The number and, for a code RFC 6455 or IANA's registry names, its name: `1000 (normal
    /// closure)`, `4001`.
    public var description: String {
        let name: String? =
            switch rawValue {
            case 1000: "normal closure"
            case 1001: "going away"
            case 1002: "protocol error"
            case 1003: "unsupported data"
            case 1004: "reserved"
            case 1005: "no status received"
            case 1006: "abnormal closure"
            case 1007: "invalid frame payload data"
            case 1008: "policy violation"
            case 1009: "message too big"
            case 1010: "mandatory extension"
            case 1011: "internal server error"
            case 1012: "service restart"
            case 1013: "try again later"
            case 1014: "bad gateway"
            case 1015: "TLS handshake"
            default: nil
            }
        return name.map { "\(rawValue) (\($0))" } ?? "\(rawValue)"
    }
}
