import Foundation
import Kringle
import Testing

@_spi(KringleInternals) @testable import KringleCore

/// The opening handshake's key and accept values (RFC 6455 §4.1, §4.2.2).
@Suite("WebSocket handshake values (RFC 6455 §4)")
struct WebSocketHandshakeTests {
    @Test("RFC 6455 §1.3: the accept value of the sample nonce, and the SHA-1 it encodes")
    func sampleAccept() {
        let key = "dGhlIHNhbXBsZSBub25jZQ=="
        #expect(WebSocketHandshake.acceptValue(forKey: key) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        // The 20 bytes §1.3 base64-encodes.
        #expect(
            SHA1.hash(Array((key + WebSocketHandshake.acceptGUID).utf8)) == [
                0xB3, 0x7A, 0x4F, 0x2C, 0xC0, 0x62, 0x4F, 0x16, 0x90, 0xF6,
                0x46, 0x06, 0xCF, 0x38, 0x59, 0x45, 0xB2, 0xBE, 0xC4, 0xEA,
            ])
    }

    @Test("RFC 6455 §4.1: a key is 16 random bytes in base64, new each time")
    func key() throws {
        let key = WebSocketHandshake.makeKey()
        let decoded = try #require(Data(base64Encoded: key))
        #expect(decoded.count == 16)
        #expect(key.utf8.count == 24)
        #expect(WebSocketHandshake.makeKey() != key)
    }

    @Test("a key's bytes come from the generator it is given")
    func keyFromGenerator() {
        var first = SplitMix64(seed: 1)
        var second = SplitMix64(seed: 1)
        let key = WebSocketHandshake.makeKey(using: &first)
        #expect(WebSocketHandshake.makeKey(using: &second) == key)
        #expect(WebSocketHandshake.acceptValue(forKey: key).utf8.count == 28)
    }
}
