import Kringle
import Testing

@_spi(KringleInternals) @testable import KringleCore

/// The encoder on RFC 6455 §5.7's examples, byte for byte, and its length forms (§5.2).
@Suite("WebSocket frame encoder (RFC 6455 §5.2, §5.7)")
struct WebSocketFrameEncoderTests {
    /// The masking key of §5.7's masked examples, `37 fa 21 3d`.
    static let exampleKey: UInt32 = 0x37FA_213D
    static let hello = Array("Hello".utf8)

    struct Example: Sendable, CustomTestStringConvertible {
        var name: String
        var frame: WebSocketFrame
        var maskingKey: UInt32?
        var bytes: [UInt8]
        var testDescription: String { name }
    }

    /// RFC 6455 §5.7, every example that fits in a line; the long ones are in ``lengthForms``.
    static let examples: [Example] = [
        Example(
            name: "a single-frame unmasked text message", frame: WebSocketFrame(opcode: .text, payload: hello),
            bytes: [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]),
        Example(
            name: "a single-frame masked text message", frame: WebSocketFrame(opcode: .text, payload: hello),
            maskingKey: exampleKey, bytes: [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]),
        Example(
            name: "a fragmented unmasked text message, first fragment",
            frame: WebSocketFrame(isFinal: false, opcode: .text, payload: Array("Hel".utf8)),
            bytes: [0x01, 0x03, 0x48, 0x65, 0x6C]),
        Example(
            name: "a fragmented unmasked text message, last fragment",
            frame: WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)), bytes: [0x80, 0x02, 0x6C, 0x6F]),
        Example(
            name: "an unmasked ping", frame: WebSocketFrame(opcode: .ping, payload: hello),
            bytes: [0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]),
        Example(
            name: "a masked pong", frame: WebSocketFrame(opcode: .pong, payload: hello), maskingKey: exampleKey,
            bytes: [0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]),
        // RFC 7692 §7.2.3.1: "Hello" compressed with permessage-deflate, RSV1 set.
        Example(
            name: "RFC 7692: a compressed text message",
            frame: WebSocketFrame(
                isCompressed: true, opcode: .text, payload: [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]),
            bytes: [0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]),
    ]

    @Test("RFC 6455 §5.7 examples, encoded", arguments: examples)
    func encode(_ example: Example) {
        var bytes: [UInt8] = [0xEE]  // appended after what the buffer holds
        WebSocketFrameEncoder.encode(example.frame, maskingKey: example.maskingKey, into: &bytes)
        #expect(bytes == [0xEE] + example.bytes)
    }

    @Test("RFC 6455 §5.7 examples, parsed", arguments: examples)
    func parse(_ example: Example) throws {
        var parser = WebSocketFrameParser(
            role: example.maskingKey == nil ? .client : .server, maximumPayloadLength: 1 << 20, allowsCompression: true)
        parser.append(contentsOf: example.bytes)
        #expect(try parser.nextFrame() == example.frame)
        #expect(try parser.nextFrame() == nil)
        #expect(parser.bufferedByteCount == 0)
    }

    @Test(
        "RFC 6455 §5.2, §5.7: the shortest of the three length forms",
        arguments: [
            (0, [0x82, 0x00]),
            (125, [0x82, 0x7D]),
            (126, [0x82, 0x7E, 0x00, 0x7E]),
            (256, [0x82, 0x7E, 0x01, 0x00]),  // §5.7: 256 bytes binary message in a single unmasked frame
            (65535, [0x82, 0x7E, 0xFF, 0xFF]),
            // §5.7: 64KiB binary message in a single unmasked frame
            (65536, [0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00]),
        ] as [(Int, [UInt8])])
    func lengthForms(length: Int, header: [UInt8]) {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
        var bytes: [UInt8] = []
        WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: payload), maskingKey: nil, into: &bytes)
        #expect(Array(bytes.prefix(header.count)) == header)
        #expect(Array(bytes.dropFirst(header.count)) == payload)
    }

    @Test(
        "masking XORs byte i with key byte i % 4, at every length and offset the word loop can leave", arguments: 0...19
    )
    func masking(length: Int) {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let key: [UInt8] = [0xA1, 0x02, 0xFF, 0x5C]
        var bytes: [UInt8] = []
        WebSocketFrameEncoder.encode(
            WebSocketFrame(opcode: .binary, payload: payload), maskingKey: 0xA102_FF5C, into: &bytes)
        #expect(Array(bytes[2..<6]) == key)
        #expect(Array(bytes.dropFirst(6)) == payload.enumerated().map { $0.element ^ key[$0.offset % 4] })
    }

    @Test("the encoder writes what it is given, even frames a parser refuses")
    func writesBrokenFrames() {
        var bytes: [UInt8] = []
        let ping = WebSocketFrame(
            isFinal: false, isCompressed: true, opcode: .ping, payload: Array(repeating: 1, count: 126))
        WebSocketFrameEncoder.encode(ping, maskingKey: nil, into: &bytes)
        #expect(Array(bytes.prefix(4)) == [0x49, 0x7E, 0x00, 0x7E])
    }

    @Test("random masking keys differ, and come from the generator given")
    func randomKeys() {
        let keys = Set((0..<8).map { _ in WebSocketFrameEncoder.randomMaskingKey() })
        #expect(keys.count > 1)
        var first = SplitMix64(seed: 7)
        var second = SplitMix64(seed: 7)
        #expect(
            WebSocketFrameEncoder.randomMaskingKey(using: &first)
                == WebSocketFrameEncoder.randomMaskingKey(using: &second))
    }
}
