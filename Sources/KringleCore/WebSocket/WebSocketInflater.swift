import CCurlShim

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
