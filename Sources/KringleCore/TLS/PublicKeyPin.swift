import Foundation

/// A pinned server key: the SHA-256 digest of a certificate's DER-encoded
/// SubjectPublicKeyInfo (RFC 5280 §4.1.2.7), the form HPKP used (RFC 7469 §2.4) and
/// `curl --pinnedpubkey` takes.
///
/// A pin names a key, not a certificate, so it survives the renewal of a certificate for
/// the same key. Pin a backup key too, or a key rotation locks every client out.
///
/// Compute one from a certificate with the `openssl` command line:
///
/// ```sh
/// openssl x509 -in server.pem -pubkey -noout | openssl pkey -pubin -outform der \
///     | openssl dgst -sha256 -binary | openssl base64
/// ```
///
/// ```swift
/// var configuration = CurlTransport.Configuration()
/// configuration.pinnedPublicKeys = [
///     PublicKeyPin(base64: "ZU2SxpV67aRz9KEVYx16cs0oCgt9rt3kUxGxD2BDur4="),
///     PublicKeyPin(base64: "sha256//…backup key…"),
/// ].compactMap { $0 }
/// ```
public struct PublicKeyPin: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes of the SHA-256 digest.
    public let sha256: Data

    /// A pin from a digest; `nil` unless it is 32 bytes long.
    public init?(sha256: Data) {
        guard sha256.count == 32 else { return nil }
        self.sha256 = Data(sha256)
    }

    /// A pin from the base64 text of a digest, with or without curl's `sha256//` prefix;
    /// `nil` unless it decodes to 32 bytes.
    public init?(base64 text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let digits = trimmed.hasPrefix("sha256//") ? String(trimmed.dropFirst("sha256//".count)) : trimmed
        guard let digest = Data(base64Encoded: digits) else { return nil }
        self.init(sha256: digest)
    }

    /// `sha256//` and the base64 digest, as curl's `CURLOPT_PINNEDPUBLICKEY` takes it.
    public var description: String {
        "sha256//" + sha256.base64EncodedString()
    }
}
