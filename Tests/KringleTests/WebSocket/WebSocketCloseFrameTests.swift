import Kringle
import Testing

@_spi(KringleInternals) @testable import KringleCore

/// Close frames' payloads (RFC 6455 §5.5.1) and the status codes they may carry (§7.4).
@Suite("WebSocket close frames (RFC 6455 §5.5.1, §7.4)")
struct WebSocketCloseFrameTests {
    @Test(
        "§5.5.1: the payload read",
        arguments: [
            ([], .success(WebSocketCloseFrame(code: nil))),
            ([0x03], .failure(.invalidClosePayload)),
            ([0x03, 0xE8], .success(WebSocketCloseFrame(code: .normalClosure))),
            ([0x03, 0xE8] + Array("bye".utf8), .success(WebSocketCloseFrame(code: .normalClosure, reason: "bye"))),
            (
                [0x0F, 0xA1] + Array("κόσμε".utf8),
                .success(WebSocketCloseFrame(code: .init(rawValue: 4001), reason: "κόσμε"))
            ),
            ([0x03, 0xE8, 0xFF], .failure(.invalidUTF8)),
            ([0x03, 0xE8, 0xCE, 0xBA, 0xE1, 0xBD], .failure(.invalidUTF8)),  // ends inside a character
            ([0x03, 0xE8, 0xED, 0xA0, 0x80], .failure(.invalidUTF8)),  // a surrogate
            ([0x03, 0xED, 0xFF], .failure(.invalidCloseCode(1005))),  // the code is checked first
        ] as [([UInt8], Result<WebSocketCloseFrame, WebSocketProtocolError>)])
    func parse(payload: [UInt8], expected: Result<WebSocketCloseFrame, WebSocketProtocolError>) {
        #expect(Result { () throws(WebSocketProtocolError) in try WebSocketCloseFrame(parsing: payload) } == expected)
    }

    @Test(
        "§7.4: the codes a close frame may carry",
        arguments: [
            (0, false), (999, false), (1000, true), (1001, true), (1002, true), (1003, true), (1004, false),
            (1005, false), (1006, false), (1007, true), (1008, true), (1009, true), (1010, true), (1011, true),
            (1012, true), (1013, true), (1014, true), (1015, false), (1016, false), (2000, false), (2999, false),
            (3000, true), (3999, true), (4000, true), (4999, true), (5000, false), (65535, false),
        ] as [(UInt16, Bool)])
    func receivableCodes(code: UInt16, valid: Bool) {
        #expect(WebSocketCloseCode(rawValue: code).isSendable == valid)
        let result = Result { () throws(WebSocketProtocolError) in
            try WebSocketCloseFrame(parsing: [UInt8(code >> 8), UInt8(code & 0xFF)])
        }
        #expect(
            result
                == (valid
                    ? .success(WebSocketCloseFrame(code: .init(rawValue: code))) : .failure(.invalidCloseCode(code))))
    }

    @Test("§5.5.1: the payload written: code big-endian, then the reason; nothing without a code")
    func payload() throws {
        #expect(WebSocketCloseFrame(code: nil, reason: "ignored").payload() == [])
        #expect(WebSocketCloseFrame(code: .messageTooBig).payload() == [0x03, 0xF1])
        #expect(WebSocketCloseFrame(code: .init(rawValue: 4321), reason: "é").payload() == [0x10, 0xE1, 0xC3, 0xA9])
        let frame = WebSocketCloseFrame(code: .goingAway, reason: "server restarting")
        #expect(try WebSocketCloseFrame(parsing: frame.payload()) == frame)
    }

    @Test("§5.5: a reason too long for a control frame is cut after the last whole code point that fits")
    func longReason() throws {
        // 122 ASCII bytes, then a two-byte character that would end at byte 124.
        let frame = WebSocketCloseFrame(code: .normalClosure, reason: String(repeating: "a", count: 122) + "é" + "z")
        let payload = frame.payload()
        #expect(payload.count == 2 + 122)
        #expect(try WebSocketCloseFrame(parsing: payload).reason == String(repeating: "a", count: 122))
        // Exactly 123 bytes fit as they are.
        let fits = WebSocketCloseFrame(code: .normalClosure, reason: String(repeating: "b", count: 121) + "é")
        #expect(fits.payload().count == 125)
    }
}
