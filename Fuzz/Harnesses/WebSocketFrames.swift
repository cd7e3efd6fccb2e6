@_spi(KringleInternals) @testable import KringleCore

/// The WebSocket frame parser and message assembler (RFC 6455 §5), on bytes from either peer,
/// and the UTF-8 validator beneath the assembler.
///
/// The input is read by two parsers: a client's (unmasked frames, permessage-deflate
/// negotiated, a 64 KiB limit) and a server's (masked frames, no compression, a 100-byte limit
/// that the fuzzer's inputs, at most 4 KiB, can pass). Beyond not crashing:
/// - read in pieces of sizes drawn from the input, through both ways of appending, the input
///   gives the same frames and the same error as read at once, and leaves as many bytes
///   buffered;
/// - every frame keeps the rules it was checked against (control frames final, uncompressed
///   and at most 125 bytes; RSV1 only where allowed; within the limit), and an error comes
///   again from every later call;
/// - re-encoded with the masking key it came with, a frame gives back the very bytes it was
///   read from, unless its length was written in a longer form than needed: then the encoding
///   is 2, 6 or 8 bytes shorter and reads back as the same frame;
/// - the frames, fed to an assembler, give what a plain model of §5.4 and §5.5.1 says, with
///   UTF-8 judged by the standard library: each text message (or its error, at the fragment
///   after which no bytes could complete it) and each close frame;
/// - `UTF8Validator` on the input itself agrees with the standard library, and fails at the
///   first byte that no continuation could make valid.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    for configuration in Configuration.all {
        let whole = configuration.readWhole(bytes)
        let pieces = configuration.readInPieces(bytes)
        require(whole.frames == pieces.frames, "\(configuration.role): pieces give other frames")
        require(
            whole.error == pieces.error,
            "\(configuration.role): \(String(describing: whole.error)) whole, \(String(describing: pieces.error)) in pieces"
        )
        if whole.error == nil {
            require(
                whole.buffered == pieces.buffered,
                "\(configuration.role): \(whole.buffered) bytes left whole, \(pieces.buffered) in pieces")
        }
        for (frame, span) in zip(whole.frames, whole.spans) {
            configuration.checkRules(frame)
            configuration.checkReencoding(frame, from: Array(bytes[span]))
        }
        MessageModel.check(whole.frames, maximumMessageLength: configuration.maximumMessageLength)
    }
    checkValidator(bytes)
    return 0
}

/// One end's parser settings.
private struct Configuration {
    var role: WebSocketRole
    var maximumPayloadLength: Int
    var allowsCompression: Bool
    var maximumMessageLength: Int

    static let all = [
        Configuration(role: .client, maximumPayloadLength: 1 << 16, allowsCompression: true, maximumMessageLength: 300),
        Configuration(role: .server, maximumPayloadLength: 100, allowsCompression: false, maximumMessageLength: 150),
    ]

    func parser() -> WebSocketFrameParser {
        WebSocketFrameParser(
            role: role, maximumPayloadLength: maximumPayloadLength, allowsCompression: allowsCompression)
    }

    /// What one reading found: the frames and, for a reading at once, the input each came from.
    struct Reading {
        var frames: [WebSocketFrame] = []
        var spans: [Range<Int>] = []
        var error: WebSocketProtocolError?
        var buffered = 0
    }

    /// The input appended at once, then read.
    func readWhole(_ bytes: [UInt8]) -> Reading {
        var parser = parser()
        parser.append(contentsOf: bytes)
        var reading = Reading()
        var offset = 0
        do throws(WebSocketProtocolError) {
            while let frame = try parser.nextFrame() {
                let end = bytes.count - parser.bufferedByteCount
                require(end > offset, "a frame from no bytes")
                reading.frames.append(frame)
                reading.spans.append(offset..<end)
                offset = end
            }
        } catch {
            reading.error = error
            // §7.1.7: the connection is failed; the parser says so again.
            do throws(WebSocketProtocolError) {
                _ = try parser.nextFrame()
                require(false, "no error the second time after \(error)")
            } catch {
                require(error == reading.error, "\(error) the second time after \(reading.error!)")
            }
        }
        reading.buffered = parser.bufferedByteCount
        require(
            reading.buffered == bytes.count - offset, "\(reading.buffered) bytes buffered of \(bytes.count - offset)")
        return reading
    }

    /// The input appended in pieces whose sizes a generator seeded by the input draws, each
    /// piece read as far as it goes; pieces alternate between the two ways of appending.
    func readInPieces(_ bytes: [UInt8]) -> Reading {
        var parser = parser()
        var generator = PieceSizes(seed: bytes)
        var reading = Reading()
        var offset = 0
        var raw = false
        while offset < bytes.count {
            let end = min(bytes.count, offset + generator.nextSize())
            if raw {
                bytes[offset..<end].withUnsafeBytes { parser.append($0) }
            } else {
                parser.append(contentsOf: bytes[offset..<end])
            }
            raw.toggle()
            offset = end
            do throws(WebSocketProtocolError) {
                while let frame = try parser.nextFrame() { reading.frames.append(frame) }
            } catch {
                reading.error = error
                break
            }
        }
        reading.buffered = parser.bufferedByteCount
        return reading
    }

    /// The rules of RFC 6455 §5.2 and §5.5 and RFC 7692 §6 that a frame returned kept.
    func checkRules(_ frame: WebSocketFrame) {
        require(frame.payload.count <= maximumPayloadLength, "a payload of \(frame.payload.count) bytes")
        if frame.opcode.isControl {
            require(frame.isFinal, "a fragmented \(frame.opcode)")
            require(frame.payload.count <= 125, "a \(frame.opcode) of \(frame.payload.count) bytes")
        }
        if frame.isCompressed {
            require(allowsCompression, "RSV1 without compression")
            require(frame.opcode == .text || frame.opcode == .binary, "RSV1 on a \(frame.opcode)")
        }
    }

    /// The frame encoded again, with the key it was masked with, against the bytes it came from.
    func checkReencoding(_ frame: WebSocketFrame, from original: [UInt8]) {
        let headerLength =
            switch original[1] & 0x7F {
            case 126: 4
            case 127: 10
            default: 2
            }
        var key: UInt32?
        if role == .server {
            require(original[1] & 0x80 != 0, "an unmasked frame read by a server")
            key = original[headerLength..<(headerLength + 4)].reduce(0) { $0 << 8 | UInt32($1) }
        }
        var encoded: [UInt8] = []
        WebSocketFrameEncoder.encode(frame, maskingKey: key, into: &encoded)
        let saved = original.count - encoded.count
        if saved == 0 {
            require(encoded == original, "\(frame.opcode) of \(frame.payload.count) bytes encodes to other bytes")
            return
        }
        // A 16-bit length that fit in 7 bits saves 2, a 64-bit one 8 (or 6 when it fit in 16).
        require([2, 6, 8].contains(saved), "the encoding is \(saved) bytes shorter than the original")
        var parser = parser()
        parser.append(contentsOf: encoded)
        do throws(WebSocketProtocolError) {
            let reread = try parser.nextFrame()
            require(reread == frame, "the shorter encoding reads as another frame")
            require(parser.bufferedByteCount == 0, "bytes left after the shorter encoding")
        } catch {
            require(false, "the shorter encoding is refused: \(error)")
        }
    }
}

/// What RFC 6455 says of a sequence of frames, in the plainest terms, beside which the
/// assembler's answers are checked: §5.4's ordering, the length limit (checked before UTF-8),
/// text judged by the standard library, close payloads by §5.5.1 and §7.4.
private struct MessageModel {
    let maximumMessageLength: Int
    /// The first frame of the message in progress, and its bytes so far.
    private var first: WebSocketFrame?
    private var payload: [UInt8] = []

    /// Feeds `frames` to an assembler and to the model, which must agree up to the first error.
    static func check(_ frames: [WebSocketFrame], maximumMessageLength: Int) {
        var assembler = WebSocketMessageAssembler(maximumMessageLength: maximumMessageLength)
        var model = MessageModel(maximumMessageLength: maximumMessageLength)
        for frame in frames {
            let actual = Result { () throws(WebSocketProtocolError) in try assembler.consume(frame) }
            let expected = model.expect(frame)
            require(actual == expected, "\(actual) where \(expected) was due, for a \(frame.opcode) frame")
            if case .failure = expected { return }
        }
    }

    init(maximumMessageLength: Int) {
        self.maximumMessageLength = maximumMessageLength
    }

    /// What the assembler should answer to `frame`.
    mutating func expect(_ frame: WebSocketFrame) -> Result<WebSocketEvent?, WebSocketProtocolError> {
        switch frame.opcode {
        case .ping: return .success(.ping(frame.payload))
        case .pong: return .success(.pong(frame.payload))
        case .close: return Self.close(frame.payload)
        case .text, .binary:
            guard first == nil else { return .failure(.interleavedDataFrame) }
            first = frame
            payload = []
        case .continuation:
            guard first != nil else { return .failure(.unexpectedContinuation) }
            guard !frame.isCompressed else { return .failure(.reservedBits) }
        }
        let message = first!
        payload += frame.payload
        guard payload.count <= maximumMessageLength else { return .failure(.messageTooLong(payload.count)) }
        let isText = message.opcode == .text && !message.isCompressed
        if isText && !canBeginUTF8(payload) { return .failure(.invalidUTF8) }
        guard frame.isFinal else { return .success(nil) }
        first = nil
        if message.isCompressed { return .success(.compressed(opcode: message.opcode, payload: payload)) }
        guard isText else { return .success(.binary(payload)) }
        guard isUTF8(payload) else { return .failure(.invalidUTF8) }
        return .success(.text(String(decoding: payload, as: UTF8.self)))
    }

    /// §5.5.1 and §7.4: nothing, or a code any endpoint may send and a UTF-8 reason.
    private static func close(_ payload: [UInt8]) -> Result<WebSocketEvent?, WebSocketProtocolError> {
        if payload.isEmpty { return .success(.close(WebSocketCloseFrame(code: nil))) }
        if payload.count == 1 { return .failure(.invalidClosePayload) }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard (1000...1003).contains(code) || (1007...1014).contains(code) || (3000...4999).contains(code) else {
            return .failure(.invalidCloseCode(code))
        }
        guard let reason = String(validating: payload.dropFirst(2), as: UTF8.self) else {
            return .failure(.invalidUTF8)
        }
        return .success(.close(WebSocketCloseFrame(code: WebSocketCloseCode(rawValue: code), reason: reason)))
    }
}

/// Whether the standard library takes `bytes` as UTF-8.
private func isUTF8(_ bytes: some Collection<UInt8>) -> Bool {
    String(validating: bytes, as: UTF8.self) != nil
}

/// Whether some bytes after `bytes` could make them UTF-8: they are already, or one to three
/// continuation bytes complete them. The first of those is tried as 80, 90 and A0, which
/// between them fall in every range Table 3-7 allows after a lead byte; the rest as 80.
private func canBeginUTF8(_ bytes: [UInt8]) -> Bool {
    if isUTF8(bytes) { return true }
    for first: UInt8 in [0x80, 0x90, 0xA0] {
        for more in 0..<3 where isUTF8(bytes + [first] + repeatElement(0x80, count: more)) {
            return true
        }
    }
    return false
}

/// `UTF8Validator` on the input: in pieces as byte by byte, with the standard library's
/// verdict, failing exactly at the first byte that no continuation could redeem.
private func checkValidator(_ bytes: [UInt8]) {
    var bytewise = UTF8Validator()
    let accepted = bytes.prefix { bytewise.consume(CollectionOfOne($0)) }.count
    var pieces = UTF8Validator()
    var generator = PieceSizes(seed: bytes)
    var offset = 0
    var verdict = true
    while offset < bytes.count {
        let end = min(bytes.count, offset + generator.nextSize())
        verdict = pieces.consume(bytes[offset..<end])
        offset = end
    }
    require(verdict == (accepted == bytes.count), "pieces say \(verdict), bytes accepted \(accepted) of \(bytes.count)")
    require(pieces.isComplete == bytewise.isComplete, "complete in pieces: \(pieces.isComplete)")
    require(bytewise.isComplete == isUTF8(bytes), "complete: \(bytewise.isComplete), the standard library disagrees")
    if accepted < bytes.count {
        require(canBeginUTF8(Array(bytes[..<accepted])), "accepted \(accepted) bytes that no continuation makes UTF-8")
        require(
            !canBeginUTF8(Array(bytes[...accepted])),
            "refused byte \(accepted), after which a continuation still makes UTF-8")
    }
}

/// Piece sizes drawn from the input itself (SplitMix64 seeded by its FNV-1a hash), so that a
/// finding replays: mostly small pieces that split headers, now and then a larger one.
private struct PieceSizes {
    private var state: UInt64

    init(seed bytes: [UInt8]) {
        state = bytes.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }

    mutating func nextSize() -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return z % 8 == 0 ? Int((z >> 8) % 512) + 1 : Int((z >> 8) % 7) + 1
    }
}
