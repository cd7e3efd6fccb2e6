// SHA-1 (FIPS 180-4 §6.1), for the one place Kringle needs it: the WebSocket opening
// handshake's Sec-WebSocket-Accept (RFC 6455 §4.2.2). Not for anything that needs collision
// resistance, which SHA-1 no longer has; RFC 6455 §10.8 uses it only to prove that the server
// read the key, not to keep a secret.

/// An incremental SHA-1 digest (FIPS 180-4 §6.1): feed bytes with ``update(_:)``, then read
/// the 20-byte digest with ``finalize()``.
///
/// ```swift
/// let digest = SHA1.hash(Array("abc".utf8))  // a9 99 3e 36 …
/// ```
struct SHA1 {
    /// H0…H4, the initial hash value of FIPS 180-4 §5.3.1.
    private var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
    /// The bytes of a block not yet full, fewer than 64.
    private var pending: [UInt8] = []
    /// How many bytes were fed in all, for the padding's length field (§5.1.1).
    private var byteCount: UInt64 = 0

    /// The bytes of one message-block (§5.2.1: 512 bits).
    private static let blockSize = 64

    init() {
        pending.reserveCapacity(Self.blockSize)
    }

    /// The digest of `bytes`, 20 bytes.
    static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var sha1 = SHA1()
        sha1.update(bytes)
        return sha1.finalize()
    }

    /// Feeds `bytes` to the digest.
    mutating func update(_ bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        byteCount &+= UInt64(array.count)
        var offset = 0
        if !pending.isEmpty {
            let taken = min(Self.blockSize - pending.count, array.count)
            pending.append(contentsOf: array[0..<taken])
            offset = taken
            guard pending.count == Self.blockSize else { return }
            pending.withUnsafeBytes { compress(block: $0) }
            pending.removeAll(keepingCapacity: true)
        }
        array.withUnsafeBytes { raw in
            while array.count - offset >= Self.blockSize {
                compress(block: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + Self.blockSize)]))
                offset += Self.blockSize
            }
        }
        pending.append(contentsOf: array[offset...])
    }

    /// The 20-byte digest of everything fed: pads the message (§5.1.1: a 1 bit, zeros, the
    /// length in bits as a 64-bit big-endian number) and writes H0…H4 big-endian (§6.1.2).
    consuming func finalize() -> [UInt8] {
        let bitCount = byteCount &* 8
        var padding: [UInt8] = [0x80]
        let zeros = (Self.blockSize * 2 - 8 - (pending.count + 1)) % Self.blockSize
        padding.append(contentsOf: repeatElement(0, count: zeros))
        for shift in stride(from: 56, through: 0, by: -8) {
            padding.append(UInt8(truncatingIfNeeded: bitCount >> UInt64(shift)))
        }
        let length = byteCount
        update(padding)
        byteCount = length
        return state.flatMap { word in
            [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> UInt32($0)) }
        }
    }

    /// The SHA-1 hash computation of §6.1.2 on one 64-byte block.
    private mutating func compress(block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { schedule in
            // §6.1.2 step 1: the message schedule W0…W79.
            for t in 0..<16 {
                schedule[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t * 4, as: UInt32.self))
            }
            for t in 16..<80 {
                schedule[t] = (schedule[t - 3] ^ schedule[t - 8] ^ schedule[t - 14] ^ schedule[t - 16]).rotatedLeft(1)
            }
            // Steps 2-4: eighty rounds over the working variables a…e.
            var a = state[0]
            var b = state[1]
            var c = state[2]
            var d = state[3]
            var e = state[4]
            for t in 0..<80 {
                // §4.1.1 the functions f0…f79 and §4.2.1 the constants K0…K79.
                let f: UInt32
                let k: UInt32
                switch t {
                case 0..<20:
                    f = (b & c) | (~b & d)
                    k = 0x5A82_7999
                case 20..<40:
                    f = b ^ c ^ d
                    k = 0x6ED9_EBA1
                case 40..<60:
                    f = (b & c) | (b & d) | (c & d)
                    k = 0x8F1B_BCDC
                default:
                    f = b ^ c ^ d
                    k = 0xCA62_C1D6
                }
                let temporary = a.rotatedLeft(5) &+ f &+ e &+ k &+ schedule[t]
                e = d
                d = c
                c = b.rotatedLeft(30)
                b = a
                a = temporary
            }
            state[0] &+= a
            state[1] &+= b
            state[2] &+= c
            state[3] &+= d
            state[4] &+= e
        }
    }
}

extension UInt32 {
    /// ROTL^n(x) of FIPS 180-4 §3.2.
    fileprivate func rotatedLeft(_ count: UInt32) -> UInt32 {
        (self << count) | (self >> (32 - count))
    }
}
