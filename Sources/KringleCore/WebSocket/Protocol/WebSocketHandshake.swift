import Foundation

/// The values of the WebSocket opening handshake (RFC 6455 §4): the client's
/// `Sec-WebSocket-Key` and the server's `Sec-WebSocket-Accept` that answers it.
///
/// ```swift
/// let key = WebSocketHandshake.makeKey()
/// // … send it, then check the response:
/// let expected = WebSocketHandshake.acceptValue(forKey: key)
/// ```
@_spi(KringleInternals)
public enum WebSocketHandshake {
    /// The GUID that §1.3 appends to the key before hashing it.
    static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// A new `Sec-WebSocket-Key`: 16 random bytes, base64-encoded (§4.1, item 7 of the
    /// client's requirements: "randomly selected", a nonce for each connection).
    static func makeKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return makeKey(using: &generator)
    }

    /// A new `Sec-WebSocket-Key` whose 16 bytes come from `generator`.
    static func makeKey(using generator: inout some RandomNumberGenerator) -> String {
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
    }

    /// The `Sec-WebSocket-Accept` value that answers `key` (§4.2.2, item 5.4 of the
    /// server's response): base64 of the SHA-1 of the key, as sent (no whitespace), followed by
    /// the GUID `258EAFA5-E914-47DA-95CA-C5AB0DC85B11`.
    ///
    /// - Parameter key: The request's `Sec-WebSocket-Key` value, trimmed of whitespace.
    /// - Returns: 28 characters of base64, such as `s3pPLMBiTxaEDQ8e5uevYzu3XQo=`.
    @_spi(KringleInternals)
    public static func acceptValue(forKey key: String) -> String {
        Data(SHA1.hash(Array((key + acceptGUID).utf8))).base64EncodedString()
    }
}
