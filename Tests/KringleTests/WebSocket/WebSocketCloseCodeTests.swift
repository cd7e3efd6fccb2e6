import Kringle
import Testing

@_spi(KringleInternals) @testable import KringleCore

/// The public status code type: its numbers, names and which codes a close frame may carry.
@Suite("WebSocket close codes (RFC 6455 §7.4)")
struct WebSocketCloseCodeTests {
    @Test(
        "§7.4.1: the defined codes, their numbers and names",
        arguments: [
            (.normalClosure, 1000, "1000 (normal closure)"), (.goingAway, 1001, "1001 (going away)"),
            (.protocolError, 1002, "1002 (protocol error)"), (.unsupportedData, 1003, "1003 (unsupported data)"),
            (.noStatusReceived, 1005, "1005 (no status received)"), (.abnormalClosure, 1006, "1006 (abnormal closure)"),
            (.invalidFramePayloadData, 1007, "1007 (invalid frame payload data)"),
            (.policyViolation, 1008, "1008 (policy violation)"), (.messageTooBig, 1009, "1009 (message too big)"),
            (.mandatoryExtension, 1010, "1010 (mandatory extension)"),
            (.internalServerError, 1011, "1011 (internal server error)"), (.init(rawValue: 4001), 4001, "4001"),
        ] as [(WebSocketCloseCode, UInt16, String)])
    func defined(code: WebSocketCloseCode, rawValue: UInt16, description: String) {
        #expect(code.rawValue == rawValue)
        #expect(code.description == description)
        #expect(code == WebSocketCloseCode(rawValue: rawValue))
    }
}
