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
