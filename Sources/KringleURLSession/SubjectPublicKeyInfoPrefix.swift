import Foundation
@_spi(KringleInternals) import KringleCore

/// The DER prefix that turns a raw public key, as `SecKeyCopyExternalRepresentation` gives
/// it (an uncompressed EC point, or a PKCS #1 `RSAPublicKey`), into the SubjectPublicKeyInfo
/// (RFC 5280 §4.1.2.7) whose SHA-256 a ``/KringleCore/PublicKeyPin`` is: the algorithm identifier
/// (RFC 5480 §2.1.1 for EC, RFC 3279 §2.3.1 for RSA) and the bit string's header.
enum SubjectPublicKeyInfoPrefix {
    /// The kinds of key whose prefix is known.
    enum Algorithm: Sendable {
        case ellipticCurve
        case rsa
    }

    /// The prefix for a key of `algorithm` and `bits`, or `nil` for one that is not known.
    static func bytes(for algorithm: Algorithm, bits: Int) -> [UInt8]? {
        let hex: String? =
            switch (algorithm, bits) {
            case (.ellipticCurve, 256): "3059301306072a8648ce3d020106082a8648ce3d030107034200"
            case (.ellipticCurve, 384): "3076301006072a8648ce3d020106052b81040022036200"
            case (.ellipticCurve, 521): "30819b301006072a8648ce3d020106052b8104002303818600"
            case (.rsa, 2048): "30820122300d06092a864886f70d01010105000382010f00"
            case (.rsa, 3072): "308201a2300d06092a864886f70d01010105000382018f00"
            case (.rsa, 4096): "30820222300d06092a864886f70d01010105000382020f00"
            default: nil
            }
        guard let hex else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
