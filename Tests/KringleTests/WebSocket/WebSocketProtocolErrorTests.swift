import Kringle
import Testing

@_spi(KringleInternals) @testable import KringleCore

/// What each protocol error closes the connection with (RFC 6455 §7.4.1) and says.
@Suite("WebSocket protocol errors (RFC 6455 §7.1.7, §7.4.1)")
struct WebSocketProtocolErrorTests {
    @Test(
        "the close code and a description that names what was wrong",
        arguments: [
            (.reservedBits, .protocolError, "RSV2"),
            (.reservedOpcode(0xB), .protocolError, "0xB"),
            (.controlFrameTooLong(126), .protocolError, "126 bytes"),
            (.fragmentedControlFrame, .protocolError, "without FIN"),
            (.maskedFrameFromServer, .protocolError, "masked"),
            (.unmaskedFrameFromClient, .protocolError, "unmasked"),
            (.invalidPayloadLength(1 << 63), .protocolError, "9223372036854775808"),
            (.frameTooLong(70000), .messageTooBig, "70000 bytes"),
            (.messageTooLong(1_048_577), .messageTooBig, "1048577 bytes"),
            (.unexpectedContinuation, .protocolError, "continuation"),
            (.interleavedDataFrame, .protocolError, "new message"),
            (.invalidUTF8, .invalidFramePayloadData, "UTF-8"),
            (.invalidCloseCode(1005), .protocolError, "1005 (no status received)"),
            (.invalidClosePayload, .protocolError, "one-byte"),
            (.invalidCompressedData, .protocolError, "does not inflate"),
        ] as [(WebSocketProtocolError, WebSocketCloseCode, String)])
    func closeCodeAndDescription(error: WebSocketProtocolError, closeCode: WebSocketCloseCode, mentions: String) {
        #expect(error.closeCode == closeCode)
        #expect(error.description.contains(mentions))
        #expect(error.closeCode.isSendable)
    }
}
