import Foundation
@_spi(KringleInternals) import KringleCore

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
    /// every request with ``/KringleCore/TLSFailure/unsupportedConfiguration`` rather than send it less
    /// protected than asked (``isSupported`` is `false`). Use ``/KringleCore/CurlTransport`` there: it
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
    /// retires a busy connection, so unlike ``/KringleCore/CurlTransport`` (see "Rotating certificates"
    /// in ``/KringleCore/CurlTransport/Configuration-swift.struct``) the transport sets no bound on when a
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

    /// The underlying error of the ``/KringleCore/TLSFailure/unsupportedConfiguration`` with which a
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
