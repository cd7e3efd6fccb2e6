import Foundation

/// The receiving half of a session's protocol: frames parsed from bytes, messages assembled
/// from frames, compressed ones inflated (RFC 7692).
///
/// Only the link's reading thread uses it, one call at a time, which is what makes it safe
/// without a lock.
final class WebSocketReader: @unchecked Sendable {
    // Unchecked: confined to the link's thread (see above); never touched by the session's
    // callers.
    private var parser: WebSocketFrameParser
    private var assembler: WebSocketMessageAssembler
    private let inflater: WebSocketInflater?
    private let maximumMessageLength: Int

    init(maximumMessageLength: Int, compression: WebSocketCompression?) throws(KringleError) {
        // A frame can be no longer than the message it belongs to (compressed, it is shorter).
        parser = WebSocketFrameParser(
            role: .client, maximumPayloadLength: maximumMessageLength, allowsCompression: compression != nil)
        assembler = WebSocketMessageAssembler(maximumMessageLength: maximumMessageLength)
        inflater = try compression.map { compression throws(KringleError) in try WebSocketInflater(compression) }
        self.maximumMessageLength = maximumMessageLength
    }

    /// Takes `bytes` in and returns what they completed: messages and control frames.
    func read(_ bytes: UnsafeRawBufferPointer) throws(WebSocketProtocolError) -> [WebSocketEvent] {
        parser.append(bytes)
        var events: [WebSocketEvent] = []
        while let frame = try parser.nextFrame() {
            guard let event = try assembler.consume(frame) else { continue }
            events.append(try inflated(event))
        }
        return events
    }

    /// A compressed message inflated, and for text checked as UTF-8 (RFC 7692 §6.1: the
    /// check applies to the inflated bytes); any other event as it is.
    private func inflated(_ event: WebSocketEvent) throws(WebSocketProtocolError) -> WebSocketEvent {
        guard case .compressed(let opcode, let payload) = event, let inflater else { return event }
        let bytes = try inflater.inflate(payload, limit: maximumMessageLength)
        guard opcode == .text else { return .binary(bytes) }
        var validator = UTF8Validator()
        guard validator.consume(bytes), validator.isComplete else { throw .invalidUTF8 }
        return .text(String(decoding: bytes, as: UTF8.self))
    }
}
