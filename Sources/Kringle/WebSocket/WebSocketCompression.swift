import CCurlShim
import Foundation

/// `permessage-deflate` (RFC 7692) as the server agreed to it: each data message may travel
/// as raw deflate data, flagged by RSV1 on its first frame.
///
/// The client offers it without context takeover of its own (§7.1.1.2), so every message it
/// compresses starts afresh: nothing of one message's history is kept for the next, and the
/// compressor is only made once a message long enough to gain is sent. The server may keep
/// its context; the decompressor then keeps its window for the connection's life.
struct WebSocketCompression: Sendable, Equatable {
    /// Whether the server starts each message afresh (`server_no_context_takeover`).
    var serverNoContextTakeover = false

    /// The extension offer (§7.1): no client context takeover, any server window.
    static let offer = "permessage-deflate; client_no_context_takeover"

    /// Messages shorter than this go uncompressed: deflate's framing would outweigh what it
    /// saves (the RFC lets the sender choose per message, §6).
    static let smallestCompressed = 128

    /// Why a server's `Sec-WebSocket-Extensions` cannot be accepted.
    struct Refusal: Error {
        let reason: String
    }

    /// The agreement in a `Sec-WebSocket-Extensions` response (§7.1): `nil` for none.
    ///
    /// - Throws: ``Refusal`` for an answer that cannot be accepted (§7.1.1: an extension or
    ///   parameter that was not offered, a parameter twice, a window size out of range).
    static func agreed(inResponse fields: [String]) throws(Refusal) -> WebSocketCompression? {
        let extensions = fields.joined(separator: ",").split(separator: ",", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !extensions.isEmpty else { return nil }
        guard extensions.count == 1 else {
            throw Refusal(reason: "the server agreed to more than one extension: \(extensions.joined(separator: ", "))")
        }
        let parts = extensions[0].split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first?.lowercased() == "permessage-deflate" else {
            throw Refusal(reason: "the server uses an extension that was not offered: \(extensions[0])")
        }
        var compression = WebSocketCompression()
        var seen: Set<String> = []
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let name = pair[0].lowercased()
            let value = pair.count > 1 ? pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
            guard seen.insert(name).inserted else {
                throw Refusal(reason: "permessage-deflate names \(name) twice")
            }
            switch (name, value) {
            case ("server_no_context_takeover", nil):
                compression.serverNoContextTakeover = true
            case ("client_no_context_takeover", nil):
                break  // what the client does anyway
            case ("server_max_window_bits", let bits?) where Int(bits).map({ (8...15).contains($0) }) == true:
                break  // a smaller window than 15 bits inflates with the 15-bit one
            default:
                // client_max_window_bits was not offered, so the server may not send it
                // (§7.1.2.2); nothing else is defined.
                throw Refusal(reason: "permessage-deflate has a parameter that was not offered: \(parameter)")
            }
        }
        return compression
    }
}

/// Compresses messages for `permessage-deflate` (RFC 7692 §7.2.1), each from a fresh start.
/// Not thread-safe: its session serializes the calls.
final class WebSocketDeflater {
    private let deflater: Deflater

    init() throws(KringleError) {
        deflater = try Deflater(raw: ())
    }

    /// The message's compressed form: raw deflate data flushed to a byte boundary, without the
    /// final empty block's `00 00 FF FF` (§7.2.1).
    func compress(_ payload: [UInt8]) throws(KringleError) -> [UInt8] {
        var output = try deflater.compressFlushing(payload)
        if output.count >= 4, output.suffix(4).elementsEqual([0, 0, 0xFF, 0xFF]) {
            output.removeLast(4)
        }
        deflater.reset()
        return output
    }
}

/// Inflates `permessage-deflate` messages (RFC 7692 §7.2.2). Used by one reading thread.
final class WebSocketInflater {
    private let stream: OpaquePointer
    private let startsEachMessageAfresh: Bool
    private var scratch = [UInt8](repeating: 0, count: 64 << 10)

    init(_ compression: WebSocketCompression) throws(KringleError) {
        if case .failure(let failure) = Zlib.load() { throw .compressionFailed(failure) }
        var code: Int32 = 0
        guard let stream = kzlib_inflater_create(-15, &code) else {
            throw .compressionFailed(.zlib(code: code, message: "inflateInit2 refused"))
        }
        self.stream = stream
        startsEachMessageAfresh = compression.serverNoContextTakeover
    }

    deinit {
        kzlib_inflater_destroy(stream)
    }

    /// The message's bytes: `payload` with the empty block's `00 00 FF FF` put back, inflated;
    /// more than `limit` bytes is a ``WebSocketProtocolError/messageTooLong(_:)``, and data
    /// zlib cannot read a ``WebSocketProtocolError/invalidCompressedData``.
    func inflate(_ payload: [UInt8], limit: Int) throws(WebSocketProtocolError) -> [UInt8] {
        let input = payload + [0, 0, 0xFF, 0xFF]
        var output: [UInt8] = []
        var offset = 0
        while true {
            var consumed = 0
            var produced = 0
            let code = input.withUnsafeBufferPointer { bytes in
                scratch.withUnsafeMutableBufferPointer { out in
                    kzlib_inflate(
                        stream, bytes.baseAddress.map { $0 + offset }, bytes.count - offset, &consumed,
                        out.baseAddress, out.count, &produced)
                }
            }
            offset += consumed
            output.append(contentsOf: scratch[0..<produced])
            guard output.count <= limit else { throw .messageTooLong(output.count) }
            switch code {
            case Int32(KZ_OK), Int32(KZ_BUF_ERROR):
                // Done once every byte went in and zlib had room to spare.
                if offset == input.count, produced < scratch.count {
                    if startsEachMessageAfresh { kzlib_inflater_reset(stream) }
                    return output
                }
                if consumed == 0, produced == 0 { throw .invalidCompressedData }
            default:
                // Z_STREAM_END (a final block, which a sync-flushed message never has) or
                // a data error.
                throw .invalidCompressedData
            }
        }
    }
}
