/// Reads WebSocket frames (RFC 6455 §5.2) from bytes as they arrive, in pieces of any size,
/// and checks the rules of §5 that a single frame must keep.
///
/// Feed it with ``append(_:)``, then call ``nextFrame()`` until it returns `nil` (it needs
/// more bytes). A frame that breaks a rule throws, and so does every later call: the
/// connection must be failed (§7.1.7).
///
/// ```swift
/// var parser = WebSocketFrameParser(role: .client, maximumPayloadLength: 1 << 20, allowsCompression: false)
/// parser.append(contentsOf: received)
/// while let frame = try parser.nextFrame() { … }
/// ```
///
/// What it refuses: RSV2 or RSV3 (no extension defines them here) and RSV1 unless compression
/// was negotiated, and never on a control or continuation frame (RFC 7692 §6); reserved
/// opcodes; a control frame that is fragmented or over 125 bytes (§5.5); a 64-bit length
/// with its top bit set; a payload over `maximumPayloadLength`, from the header, before the
/// payload is buffered; masking the role forbids (§5.1). It accepts a length in a longer form
/// than needed, which §5.2 asks senders to avoid but does not tell receivers to refuse.
@_spi(KringleInternals)
public struct WebSocketFrameParser: Sendable {
    /// Whose frames it reads: a client reads a server's, which are not masked; a server a
    /// client's, which are.
    public let role: WebSocketRole
    /// The longest payload a frame may declare.
    public let maximumPayloadLength: Int
    /// Whether permessage-deflate (RFC 7692) was negotiated, which lets RSV1 mark a message's
    /// first frame as compressed.
    public let allowsCompression: Bool

    /// The bytes received, of which those before `readIndex` are read. Reading moves the index
    /// rather than the bytes; ``compact()`` drops the read ones now and then.
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// The error that stopped reading, thrown again by every later call.
    private var failure: WebSocketProtocolError?

    /// The most capacity kept once every byte is read: enough for the frames of an ordinary
    /// exchange, without holding on to a large message's memory after it.
    private static let retainedCapacity = 64 * 1024

    /// A parser of the frames that reach `role`.
    ///
    /// - Parameters:
    ///   - role: The end that reads: `.client` for frames from a server.
    ///   - maximumPayloadLength: The longest payload a frame may declare, 0 or more; a longer
    ///     one throws ``WebSocketProtocolError/frameTooLong(_:)``.
    ///   - allowsCompression: Whether RSV1 may mark a compressed message (RFC 7692).
    public init(role: WebSocketRole, maximumPayloadLength: Int, allowsCompression: Bool) {
        precondition(maximumPayloadLength >= 0, "a negative maximum payload length")
        self.role = role
        self.maximumPayloadLength = maximumPayloadLength
        self.allowsCompression = allowsCompression
    }

    /// How many bytes were appended and not yet returned in a frame.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Adds bytes received, to be read by ``nextFrame()``.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// Adds bytes received, to be read by ``nextFrame()``.
    public mutating func append(contentsOf bytes: some Collection<UInt8>) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// The next whole frame, its payload unmasked; `nil` when the bytes so far do not hold one.
    ///
    /// - Throws: The rule the frame broke. The parser is then done: this error comes again
    ///   from every later call.
    public mutating func nextFrame() throws(WebSocketProtocolError) -> WebSocketFrame? {
        if let failure { throw failure }
        do throws(WebSocketProtocolError) {
            return try readFrame()
        } catch {
            failure = error
            throw error
        }
    }

    /// Reads one frame at `readIndex` (§5.2), checking each rule as soon as the bytes it
    /// needs are there, in the order they come on the wire, so that the same bytes give the
    /// same error however they were split.
    private mutating func readFrame() throws(WebSocketProtocolError) -> WebSocketFrame? {
        let available = buffer.count - readIndex
        guard available >= 2 else { return nil }
        let first = buffer[readIndex]
        let second = buffer[readIndex + 1]

        // First byte: FIN, RSV1-3, opcode.
        let isFinal = first & 0x80 != 0
        let isCompressed = first & 0x40 != 0
        guard first & 0x30 == 0 else { throw .reservedBits }  // RSV2, RSV3: no extension defines them
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else { throw .reservedOpcode(first & 0x0F) }
        // RFC 7692 §6: RSV1 marks the first frame of a compressed message, and nothing else.
        if isCompressed && (!allowsCompression || opcode.isControl || opcode == .continuation) {
            throw .reservedBits
        }
        if opcode.isControl && !isFinal { throw .fragmentedControlFrame }  // §5.5

        // Second byte: MASK (§5.1, §5.3) and the payload length.
        let isMasked = second & 0x80 != 0
        switch role {
        case .client where isMasked: throw .maskedFrameFromServer
        case .server where !isMasked: throw .unmaskedFrameFromClient
        default: break
        }
        var headerLength = 2
        let length: UInt64
        switch second & 0x7F {
        case 126:
            headerLength += 2
            guard available >= headerLength else { return nil }
            length = UInt64(buffer[readIndex + 2]) << 8 | UInt64(buffer[readIndex + 3])
        case 127:
            headerLength += 8
            guard available >= headerLength else { return nil }
            length = buffer[(readIndex + 2)..<(readIndex + 10)].reduce(0) { $0 << 8 | UInt64($1) }
            guard length >> 63 == 0 else { throw .invalidPayloadLength(length) }  // §5.2: "MUST be 0"
        case let short:
            length = UInt64(short)
        }
        // Both limits from the header alone, before any of the payload is kept.
        if opcode.isControl && length > 125 { throw .controlFrameTooLong(Int(length)) }  // §5.5
        guard length <= UInt64(maximumPayloadLength) else { throw .frameTooLong(length) }

        let keyOffset = readIndex + headerLength
        if isMasked { headerLength += 4 }
        let payloadLength = Int(length)
        guard available >= headerLength, available - headerLength >= payloadLength else { return nil }

        let payloadStart = readIndex + headerLength
        var payload = Array(buffer[payloadStart..<(payloadStart + payloadLength)])
        if isMasked {
            let key = buffer[keyOffset..<(keyOffset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
            payload.withUnsafeMutableBytes { WebSocketMaskingKey(key).apply(to: $0) }
        }
        readIndex = payloadStart + payloadLength
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= Self.retainedCapacity)
            readIndex = 0
        }
        return WebSocketFrame(isFinal: isFinal, isCompressed: isCompressed, opcode: opcode, payload: payload)
    }

    /// Drops the bytes already read once they are at least as many as the bytes still to
    /// read. The bytes moved are then never more than the bytes dropped, so a connection's
    /// copying stays within what it received, however small the pieces that arrive.
    private mutating func compact() {
        guard readIndex > 0, readIndex >= buffer.count - readIndex else { return }
        buffer.removeSubrange(0..<readIndex)
        readIndex = 0
    }
}
