/// A frame's masking key and the XOR it applies to the payload (RFC 6455 §5.3): byte `i` of
/// the payload is XORed with byte `i % 4` of the key. Masking twice unmasks, so the parser
/// and the encoder share it.
struct WebSocketMaskingKey: Sendable, Hashable {
    /// The key as a number whose big-endian bytes are the key's bytes on the wire: byte 0 of
    /// the key is its most significant byte.
    var value: UInt32

    /// The key `value`.
    init(_ value: UInt32) {
        self.value = value
    }

    /// The four bytes of the key as a frame carries them (§5.2 "Masking-key").
    var bytes: [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
    }

    /// Masks (or unmasks) `payload` in place, the payload's first byte taking the key's first
    /// byte.
    ///
    /// Eight bytes at a time: the payload of a client's every frame goes through here, and
    /// XORing words is several times faster than bytes.
    func apply(to payload: UnsafeMutableRawBufferPointer) {
        // `value.bigEndian` holds the key's bytes in wire order in memory, whatever the host's
        // order; two of them side by side are the key for eight bytes.
        let word = UInt64(value.bigEndian)
        let wide = word | word << 32
        var index = 0
        while payload.count - index >= 8 {
            let masked = payload.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ wide
            payload.storeBytes(of: masked, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        // `index` is a multiple of 8, so of 4: the rest starts at the key's first byte.
        let keyBytes = bytes
        while index < payload.count {
            payload[index] ^= keyBytes[index & 3]
            index += 1
        }
    }
}
