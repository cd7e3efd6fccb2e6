import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Which servers a ``URLSessionTransport`` trusts beyond the platform's defaults: private
    /// certificate authorities and pinned keys. Applied on Apple platforms, in the session's
    /// server-trust challenge (`SecTrust`).
    ///
    /// **Not on Linux.** FoundationNetworking (Swift 6.3) sends no server-trust challenge to
    /// the session's delegate, sets libcurl's CA bundle only to the system's, and reads no
    /// setting or environment variable that would change it (`SSL_CERT_FILE`,
    /// `CURL_CA_BUNDLE` and `URLSessionCertificateAuthorityInfoFile`, which only its Android
    /// build reads, change nothing). So on Linux a transport made with a server trust rejects
    /// every request with ``TLSFailure/unsupportedConfiguration`` rather than send it less
    /// protected than asked (``isSupported`` is `false`). Use ``CurlTransport`` there: it
    /// takes a CA file or PEM data, pins and client certificates.
    ///
    /// ```swift
    /// let trust = URLSessionTransport.ServerTrust(certificateAuthorities: [caDER])
    /// let transport = URLSessionTransport(serverTrust: trust)
    /// ```
    ///
    /// **Rotation.** A server trust belongs to its transport: make a new transport to change
    /// it. It is checked in the server-trust challenge of each new connection; a connection
    /// that resumes a TLS session from the process's cache gets no challenge (Apple's
    /// Technical Q&A QA1727, "TLS Session Cache"), and URLSession has no setting that
    /// retires a busy connection, so unlike ``CurlTransport`` (see "Rotating certificates"
    /// in ``CurlTransport/Configuration-swift.struct``) the transport sets no bound on when a
    /// server's new certificate is seen. On Linux FoundationNetworking keeps libcurl's
    /// defaults: the system's authorities (read for each connection by a libcurl with a CA
    /// directory, as Debian's and Ubuntu's, kept up to 24 hours by other builds of 7.87 or
    /// later), sessions resumed, and busy connections kept.
    public struct ServerTrust: Sendable, Hashable {
        /// DER-encoded certificates of the authorities to trust instead of the system's;
        /// empty keeps the system's.
        public var certificateAuthorities: [Data]
        /// Server keys to accept, checked after the certificate is verified; empty pins
        /// nothing. Keys other than EC P-256, P-384, P-521 and RSA 2048, 3072, 4096 bits never
        /// match.
        public var pinnedPublicKeys: [PublicKeyPin]

        /// Creates a server trust.
        ///
        /// - Parameters:
        ///   - certificateAuthorities: DER certificates to trust instead of the system's.
        ///   - pinnedPublicKeys: keys to accept; empty pins nothing.
        public init(certificateAuthorities: [Data] = [], pinnedPublicKeys: [PublicKeyPin] = []) {
            self.certificateAuthorities = certificateAuthorities
            self.pinnedPublicKeys = pinnedPublicKeys
        }

        /// Whether this platform's URLSession lets the transport apply a server trust: `true`
        /// where the Security framework is (Apple platforms), `false` on Linux.
        public static var isSupported: Bool {
            #if canImport(Security)
            return true
            #else
            return false
            #endif
        }
    }

    /// The underlying error of the ``TLSFailure/unsupportedConfiguration`` with which a
    /// transport made with a ``ServerTrust`` rejects each request on Linux.
    public struct ServerTrustUnavailable: Error, Sendable, CustomStringConvertible {
        /// Creates the error.
        public init() {}

        /// Why, and what to use instead.
        public var description: String {
            "FoundationNetworking on this platform lets no delegate choose trusted authorities or check pins; use CurlTransport"
        }
    }
}

/// The DER prefix that turns a raw public key, as `SecKeyCopyExternalRepresentation` gives
/// it (an uncompressed EC point, or a PKCS #1 `RSAPublicKey`), into the SubjectPublicKeyInfo
/// (RFC 5280 §4.1.2.7) whose SHA-256 a ``PublicKeyPin`` is: the algorithm identifier
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
