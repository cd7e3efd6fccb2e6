import Kringle
import Testing

@_spi(KringleInternals) @testable import KringleCore

/// Messages from frames (RFC 6455 §5.4): fragments joined, control frames between them, the
/// ordering rules, the length limit, and UTF-8 checked fragment by fragment (§8.1).
@Suite("WebSocket message assembler (RFC 6455 §5.4)")
struct WebSocketMessageAssemblerTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var frames: [WebSocketFrame]
        /// What each frame returns, up to the one that throws.
        var events: [WebSocketEvent?]
        /// The error and the frame (its index) that throws it.
        var failure: (index: Int, error: WebSocketProtocolError)?
        var maximumMessageLength = 1 << 20
        var testDescription: String { name }
    }

    private static func text(_ bytes: [UInt8], final: Bool = true) -> WebSocketFrame {
        WebSocketFrame(isFinal: final, opcode: .text, payload: bytes)
    }
    private static func binary(_ bytes: [UInt8], final: Bool = true, compressed: Bool = false) -> WebSocketFrame {
        WebSocketFrame(isFinal: final, isCompressed: compressed, opcode: .binary, payload: bytes)
    }
    private static func more(_ bytes: [UInt8], final: Bool = true) -> WebSocketFrame {
        WebSocketFrame(isFinal: final, opcode: .continuation, payload: bytes)
    }
    private static let ping = WebSocketFrame(opcode: .ping, payload: [7])
    private static func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

    static let fragmentation: [Row] = [
        Row(name: "§5.7 a single-frame text message", frames: [text(utf8("Hello"))], events: [.text("Hello")]),
        Row(name: "an empty text message", frames: [text([])], events: [.text("")]),
        Row(
            name: "§5.7 a fragmented text message", frames: [text(utf8("Hel"), final: false), more(utf8("lo"))],
            events: [nil, .text("Hello")]),
        Row(
            name: "§5.4 a binary message in three fragments, one empty",
            frames: [binary([1], final: false), more([], final: false), more([2, 3])],
            events: [nil, nil, .binary([1, 2, 3])]),
        Row(
            name: "§5.4 control frames between fragments come at once",
            frames: [
                text(utf8("a"), final: false), ping, WebSocketFrame(opcode: .pong, payload: []),
                more(utf8("b"), final: false),
                WebSocketFrame(opcode: .close, payload: [0x03, 0xE8]), more(utf8("c")),
            ],
            events: [nil, .ping([7]), .pong([]), nil, .close(WebSocketCloseFrame(code: .normalClosure)), .text("abc")]),
        Row(
            name: "messages one after another",
            frames: [binary([1]), text(utf8("x"), final: false), more([]), binary([2])],
            events: [.binary([1]), nil, .text("x"), .binary([2])]),
        Row(
            name: "§5.4 a continuation with no message begun", frames: [more(utf8("lo"))], events: [],
            failure: (0, .unexpectedContinuation)),
        Row(
            name: "§5.4 a continuation after the message ended", frames: [text(utf8("a")), more(utf8("b"))],
            events: [.text("a")], failure: (1, .unexpectedContinuation)),
        Row(
            name: "§5.4 a text frame inside a fragmented message",
            frames: [text(utf8("a"), final: false), text(utf8("b"))],
            events: [nil], failure: (1, .interleavedDataFrame)),
        Row(
            name: "§5.4 a binary frame inside a fragmented message",
            frames: [text(utf8("a"), final: false), ping, binary([1])], events: [nil, .ping([7])],
            failure: (2, .interleavedDataFrame)),
        Row(
            name: "RFC 7692 §6.1 RSV1 on a continuation frame",
            frames: [
                binary([1], final: false, compressed: true),
                WebSocketFrame(isCompressed: true, opcode: .continuation, payload: []),
            ],
            events: [nil], failure: (1, .reservedBits)),
        Row(
            name: "a message of exactly the maximum", frames: [text(utf8("Hel"), final: false), more(utf8("lo"))],
            events: [nil, .text("Hello")], maximumMessageLength: 5),
        Row(
            name: "fragments that together pass the maximum",
            frames: [text(utf8("Hel"), final: false), more(utf8("lo"), final: false), more(utf8("!"))],
            events: [nil, nil],
            failure: (2, .messageTooLong(6)), maximumMessageLength: 5),
        Row(
            name: "one frame over the maximum", frames: [binary([1, 2, 3, 4, 5, 6])], events: [],
            failure: (0, .messageTooLong(6)), maximumMessageLength: 5),
        Row(
            name: "a compressed message counts its compressed bytes",
            frames: [binary([1, 2, 3], final: false, compressed: true), more([4, 5, 6])], events: [nil],
            failure: (1, .messageTooLong(6)), maximumMessageLength: 5),
        Row(
            name: "RFC 7692: a compressed message comes whole and compressed",
            frames: [
                WebSocketFrame(isFinal: false, isCompressed: true, opcode: .text, payload: [0xF2, 0x48]), ping,
                more([0xCD, 0xC9, 0xC9, 0x07, 0x00]),
            ],
            events: [nil, .ping([7]), .compressed(opcode: .text, payload: [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])]),
        Row(
            name: "a compressed binary message", frames: [binary([0xFF], compressed: true)],
            events: [.compressed(opcode: .binary, payload: [0xFF])]),
    ]

    static let utf8Rows: [Row] = [
        Row(
            name: "§8.1 a four-byte character split over three fragments passes",
            frames: [text([0x61, 0xF0], final: false), more([0x9F, 0x98], final: false), more([0x80])],
            events: [nil, nil, .text("a\u{1F600}")]),
        Row(
            name: "a three-byte character split one byte a fragment passes",
            frames: [text([0xE2], final: false), more([0x82], final: false), more([0xAC], final: false), more([])],
            events: [nil, nil, nil, .text("€")]),
        Row(
            name: "a bad sequence split over fragments fails at the one that breaks it (F0 then 28)",
            frames: [text([0x61, 0xF0], final: false), more([0x28, 0x8C], final: false), more([0x28])], events: [nil],
            failure: (1, .invalidUTF8)),
        Row(
            name: "a surrogate split over fragments fails at its second byte (ED | A0 80)",
            frames: [text([0xED], final: false), more([0xA0, 0x80])], events: [nil], failure: (1, .invalidUTF8)),
        Row(
            name: "an overlong form split over fragments (E0 | 80 80)",
            frames: [text([0xE0], final: false), more([0x80, 0x80])], events: [nil], failure: (1, .invalidUTF8)),
        Row(
            name: "past U+10FFFF split over fragments (F4 | 90 80 80)",
            frames: [text([0xF4], final: false), more([0x90, 0x80, 0x80])], events: [nil], failure: (1, .invalidUTF8)),
        Row(
            name: "a bad first fragment fails before the message ends (C0 80)",
            frames: [text([0xC0, 0x80], final: false), more(utf8("x"))], events: [], failure: (0, .invalidUTF8)),
        Row(
            name: "a message that ends inside a character fails at its last fragment",
            frames: [text([0x61, 0xF0, 0x9F], final: false), more([0x98])], events: [nil], failure: (1, .invalidUTF8)),
        Row(
            name: "a single frame that ends inside a character", frames: [text([0xE2, 0x82])], events: [],
            failure: (0, .invalidUTF8)),
        Row(
            name: "binary messages are not checked", frames: [binary([0xC0], final: false), more([0xFF])],
            events: [nil, .binary([0xC0, 0xFF])]),
        Row(
            name: "a compressed text message is left for the inflater to check",
            frames: [WebSocketFrame(isFinal: false, isCompressed: true, opcode: .text, payload: [0xC0]), more([0xFF])],
            events: [nil, .compressed(opcode: .text, payload: [0xC0, 0xFF])]),
    ]

    @Test("fragmentation (§5.4) and the length limit", arguments: fragmentation)
    func fragments(_ row: Row) {
        check(row)
    }

    @Test("text is UTF-8, checked fragment by fragment (§8.1)", arguments: utf8Rows)
    func utf8(_ row: Row) {
        check(row)
    }

    private func check(_ row: Row) {
        var assembler = WebSocketMessageAssembler(maximumMessageLength: row.maximumMessageLength)
        var events: [WebSocketEvent?] = []
        for (index, frame) in row.frames.enumerated() {
            do throws(WebSocketProtocolError) {
                events.append(try assembler.consume(frame))
            } catch {
                #expect(row.failure?.index == index, "frame \(index) threw \(error)")
                #expect(row.failure?.error == error)
                #expect(events == row.events)
                return
            }
        }
        #expect(row.failure == nil, "nothing threw")
        #expect(events == row.events)
    }

    @Test("a close frame's payload is parsed, and its errors thrown")
    func closeFrames() throws {
        var assembler = WebSocketMessageAssembler(maximumMessageLength: 10)
        #expect(
            try assembler.consume(WebSocketFrame(opcode: .close, payload: [0x03, 0xE9] + Array("bye".utf8)))
                == .close(WebSocketCloseFrame(code: .goingAway, reason: "bye")))
        #expect(throws: WebSocketProtocolError.invalidCloseCode(1005)) {
            try assembler.consume(WebSocketFrame(opcode: .close, payload: [0x03, 0xED]))
        }
    }
}
