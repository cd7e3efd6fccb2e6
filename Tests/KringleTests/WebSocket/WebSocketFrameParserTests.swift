import Kringle
import Testing

@_spi(KringleInternals) @testable import KringleCore

/// The incremental frame parser: round trips through the encoder, the rules of RFC 6455 §5
/// it enforces, and the same frames however the bytes are split.
@Suite("WebSocket frame parser (RFC 6455 §5)")
struct WebSocketFrameParserTests {
    private static func encoded(_ frames: [WebSocketFrame], maskingKey: UInt32? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        for frame in frames { WebSocketFrameEncoder.encode(frame, maskingKey: maskingKey, into: &bytes) }
        return bytes
    }

    /// Every frame in `bytes`, fed in pieces of `pieceSize` (all at once when nil).
    private static func parse(
        _ bytes: [UInt8], role: WebSocketRole, pieceSize: Int? = nil, maximumPayloadLength: Int = 1 << 20,
        allowsCompression: Bool = false
    ) throws(WebSocketProtocolError) -> [WebSocketFrame] {
        var parser = WebSocketFrameParser(
            role: role, maximumPayloadLength: maximumPayloadLength, allowsCompression: allowsCompression)
        var frames: [WebSocketFrame] = []
        var offset = 0
        repeat {
            let end = min(bytes.count, offset + (pieceSize ?? bytes.count))
            parser.append(contentsOf: bytes[offset..<end])
            offset = end
            while let frame = try parser.nextFrame() { frames.append(frame) }
        } while offset < bytes.count
        return frames
    }

    @Test(
        "round trip through the encoder at each length form's edges, masked and not",
        arguments: [0, 1, 125, 126, 127, 65535, 65536, 70001], [nil, 0x0102_0304, 0xFFFF_FFFF] as [UInt32?])
    func roundTrip(length: Int, maskingKey: UInt32?) throws {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let frame = WebSocketFrame(isFinal: length % 2 == 0, opcode: .binary, payload: payload)
        let bytes = Self.encoded([frame], maskingKey: maskingKey)
        let frames = try Self.parse(bytes, role: maskingKey == nil ? .client : .server)
        #expect(frames == [frame])
    }

    @Test("a frame split anywhere waits for the rest, and bytes after it stay buffered")
    func partial() throws {
        let frame = WebSocketFrame(opcode: .text, payload: Array(repeating: 0x61, count: 300))
        let bytes = Self.encoded([frame])
        var parser = WebSocketFrameParser(role: .client, maximumPayloadLength: 1000, allowsCompression: false)
        for byte in bytes.dropLast() {
            parser.append(contentsOf: [byte])
            #expect(try parser.nextFrame() == nil)
        }
        #expect(parser.bufferedByteCount == bytes.count - 1)
        // The last byte and the first of the next frame, through the raw-buffer entry point.
        [bytes.last!, 0x89].withUnsafeBytes { parser.append($0) }
        #expect(try parser.nextFrame() == frame)
        #expect(try parser.nextFrame() == nil)
        #expect(parser.bufferedByteCount == 1)
    }

    @Test("RFC 6455 §5.2: a length in a longer form than needed is accepted")
    func nonMinimalLength() throws {
        let sixteenBit: [UInt8] = [0x82, 0x7E, 0x00, 0x02, 0xAA, 0xBB]
        let sixtyFourBit: [UInt8] = [0x82, 0x7F, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xCC]
        #expect(try Self.parse(sixteenBit, role: .client) == [WebSocketFrame(opcode: .binary, payload: [0xAA, 0xBB])])
        #expect(try Self.parse(sixtyFourBit, role: .client) == [WebSocketFrame(opcode: .binary, payload: [0xCC])])
    }

    struct Rejection: Sendable, CustomTestStringConvertible {
        var rule: String
        var bytes: [UInt8]
        var role: WebSocketRole = .client
        var maximumPayloadLength = 1 << 20
        var allowsCompression = false
        var error: WebSocketProtocolError
        var closeCode: WebSocketCloseCode = .protocolError
        var testDescription: String { rule }
    }

    static let rejections: [Rejection] = [
        Rejection(rule: "§5.2 RSV2", bytes: [0xA1, 0x00], error: .reservedBits),
        Rejection(rule: "§5.2 RSV3", bytes: [0x91, 0x00], allowsCompression: true, error: .reservedBits),
        Rejection(rule: "§5.2 RSV1 without compression", bytes: [0xC1, 0x00], error: .reservedBits),
        Rejection(
            rule: "RFC 7692 §6 RSV1 on a continuation frame", bytes: [0xC0, 0x00], allowsCompression: true,
            error: .reservedBits),
        Rejection(
            rule: "RFC 7692 §6 RSV1 on a control frame", bytes: [0xC9, 0x00], allowsCompression: true,
            error: .reservedBits),
        Rejection(rule: "§5.2 opcode 0x3", bytes: [0x83, 0x00], error: .reservedOpcode(0x3)),
        Rejection(rule: "§5.2 opcode 0x7", bytes: [0x87, 0x00], error: .reservedOpcode(0x7)),
        Rejection(rule: "§5.2 opcode 0xB", bytes: [0x8B, 0x00], error: .reservedOpcode(0xB)),
        Rejection(rule: "§5.2 opcode 0xF", bytes: [0x0F, 0x00], error: .reservedOpcode(0xF)),
        Rejection(rule: "§5.5 a ping of 126 bytes", bytes: [0x89, 0x7E, 0x00, 0x7E], error: .controlFrameTooLong(126)),
        Rejection(
            rule: "§5.5 a close of 65536 bytes", bytes: [0x88, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0],
            error: .controlFrameTooLong(65536)),
        Rejection(rule: "§5.5 a fragmented ping", bytes: [0x09, 0x00], error: .fragmentedControlFrame),
        Rejection(rule: "§5.5 a fragmented close", bytes: [0x08, 0x00], error: .fragmentedControlFrame),
        Rejection(
            rule: "§5.2 a 64-bit length with the top bit set", bytes: [0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0],
            error: .invalidPayloadLength(1 << 63)),
        Rejection(
            rule: "a payload over the maximum, from a 7-bit length", bytes: [0x82, 0x0B], maximumPayloadLength: 10,
            error: .frameTooLong(11), closeCode: .messageTooBig),
        Rejection(
            rule: "a payload over the maximum, from a 64-bit length, with no payload yet",
            bytes: [0x82, 0x7F, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00],
            error: .frameTooLong(1 << 32), closeCode: .messageTooBig),
        Rejection(
            rule: "a ping over a small maximum", bytes: [0x89, 0x05], maximumPayloadLength: 4, error: .frameTooLong(5),
            closeCode: .messageTooBig),
        Rejection(rule: "§5.1 a masked frame from the server", bytes: [0x81, 0x80], error: .maskedFrameFromServer),
        Rejection(
            rule: "§5.1 an unmasked frame from the client", bytes: [0x81, 0x00], role: .server,
            error: .unmaskedFrameFromClient),
        Rejection(
            rule: "§5.1 an unmasked pong from the client", bytes: [0x8A, 0x00], role: .server,
            error: .unmaskedFrameFromClient),
    ]

    @Test("refused, with the error and close code that say why", arguments: rejections)
    func rejection(_ row: Rejection) {
        for pieceSize in [nil, 1] as [Int?] {
            #expect(throws: row.error) {
                try Self.parse(
                    row.bytes, role: row.role, pieceSize: pieceSize, maximumPayloadLength: row.maximumPayloadLength,
                    allowsCompression: row.allowsCompression)
            }
        }
        #expect(row.error.closeCode == row.closeCode)
    }

    @Test("the frames before a broken one are returned, then the error comes on every call")
    func errorIsFinal() throws {
        var parser = WebSocketFrameParser(role: .client, maximumPayloadLength: 100, allowsCompression: false)
        let good = WebSocketFrame(opcode: .ping, payload: [1])
        parser.append(contentsOf: Self.encoded([good]) + [0x83, 0x00] + Self.encoded([good]))
        #expect(try parser.nextFrame() == good)
        #expect(throws: WebSocketProtocolError.reservedOpcode(3)) { try parser.nextFrame() }
        #expect(throws: WebSocketProtocolError.reservedOpcode(3)) { try parser.nextFrame() }
    }

    @Test(
        "a stream of frames parses the same whole, byte by byte and in uneven pieces",
        arguments: [nil, 1, 2, 7, 125, 4096])
    func pieces(pieceSize: Int?) throws {
        let frames = [
            WebSocketFrame(isFinal: false, opcode: .text, payload: Array("Hel".utf8)),
            WebSocketFrame(opcode: .ping, payload: []),
            WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)),
            WebSocketFrame(opcode: .binary, payload: Array(repeating: 0xFE, count: 126)),
            WebSocketFrame(opcode: .binary, payload: (0..<70000).map { UInt8(truncatingIfNeeded: $0) }),
            WebSocketFrame(opcode: .pong, payload: Array(repeating: 0x55, count: 125)),
            WebSocketFrame(isCompressed: true, opcode: .binary, payload: []),
            WebSocketFrame(opcode: .close, payload: [0x03, 0xE8]),
        ]
        for (role, key) in [(WebSocketRole.client, nil), (.server, 0xDEAD_BEEF)] as [(WebSocketRole, UInt32?)] {
            let bytes = Self.encoded(frames, maskingKey: key)
            #expect(try Self.parse(bytes, role: role, pieceSize: pieceSize, allowsCompression: true) == frames)
        }
    }

    @Test("pieces of random sizes give the same frames as one piece")
    func randomPieces() throws {
        var generator = SplitMix64(seed: 0x5EED)
        let frames = (0..<200).map { index in
            WebSocketFrame(
                isFinal: true, opcode: index % 3 == 0 ? .ping : .binary,
                payload: Array(repeating: UInt8(index & 0xFF), count: index % 3 == 0 ? index % 126 : index * 3))
        }
        let bytes = Self.encoded(frames, maskingKey: 0x1234_5678)
        var parser = WebSocketFrameParser(role: .server, maximumPayloadLength: 1 << 20, allowsCompression: false)
        var parsed: [WebSocketFrame] = []
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + Int.random(in: 1...700, using: &generator))
            parser.append(contentsOf: bytes[offset..<end])
            offset = end
            while let frame = try parser.nextFrame() { parsed.append(frame) }
        }
        #expect(parsed == frames)
        #expect(parser.bufferedByteCount == 0)
    }
}
