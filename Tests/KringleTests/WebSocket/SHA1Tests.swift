import Kringle
import Testing

@_spi(KringleInternals) @testable import KringleCore

/// SHA-1 on the test vectors of FIPS 180-4's examples (NIST's "SHA1.pdf") and the one-million
/// 'a' message of FIPS 180-1 Appendix C.
@Suite("SHA-1 (FIPS 180-4)")
struct SHA1Tests {
    private static func hex(_ digest: [UInt8]) -> String {
        digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test(
        "NIST test vectors",
        arguments: [
            ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
            // The 448-bit message: padding needs a second block.
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
            ),
            // 896 bits (FIPS 180-2's long example).
            (
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                "a49b2446a02c645bf419f995b67091253a04a259"
            ),
        ])
    func vector(message: String, digest: String) {
        #expect(Self.hex(SHA1.hash(Array(message.utf8))) == digest)
    }

    @Test("one million 'a', fed in uneven pieces, as one message")
    func millionA() {
        var sha1 = SHA1()
        var fed = 0
        var piece = 1
        while fed < 1_000_000 {
            let count = min(piece, 1_000_000 - fed)
            sha1.update(repeatElement(UInt8(ascii: "a"), count: count))
            fed += count
            piece = piece % 997 + 13  // pieces of every length around the 64-byte block
        }
        #expect(Self.hex(sha1.finalize()) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test("every length around a block boundary digests the same fed whole or byte by byte", arguments: 54...130)
    func byteByByte(length: Int) {
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var sha1 = SHA1()
        for byte in message { sha1.update(CollectionOfOne(byte)) }
        #expect(sha1.finalize() == SHA1.hash(message))
    }
}
