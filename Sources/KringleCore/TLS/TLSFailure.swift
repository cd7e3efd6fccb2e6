/// Which part of TLS failed, in ``KringleError/tls(_:_:underlying:)``: what a program (or a
/// person reading the log) needs to decide what to do about it.
///
/// ```swift
/// client.get(endpoint).catch { error in
///     if case KringleError.tls(_, .expiredCertificate, _) = error { print("the server's certificate expired") }
/// }
/// ```
///
/// The transports learn the reason from their TLS library's words (curl's error buffer, which
/// with OpenSSL names the verification error), so a library that says less gives
/// ``untrustedCertificate`` or ``other`` where OpenSSL would have said more. The underlying
/// error of the ``KringleError`` case keeps the library's own message.
public enum TLSFailure: Sendable, Hashable, CustomStringConvertible {
    /// The server's certificate does not lead to an authority this client trusts (OpenSSL:
    /// "unable to get local issuer certificate"), including a chain that ends in a
    /// self-signed root nobody trusts. A private CA has to be named in the transport's
    /// configuration.
    case untrustedCertificate
    /// The server's certificate (or one in its chain) has expired or is not valid yet
    /// (RFC 5280 §4.1.2.5); the client's clock can be the culprit too.
    case expiredCertificate
    /// The certificate is for other names than the URL's host (RFC 6125 §6; RFC 9110 §4.3.4).
    case hostnameMismatch
    /// The server presented a certificate signed by its own key, trusted by no one.
    case selfSignedCertificate
    /// The server's public key is not one of the pinned keys
    /// (``CurlTransport/Configuration-swift.struct/pinnedPublicKeys``).
    case pinMismatch
    /// The server requires a client certificate and none was sent (the TLS 1.3
    /// `certificate_required` alert, RFC 8446 §6.2).
    case clientCertificateRequired
    /// The server refused the client certificate that was sent (an `unknown_ca`,
    /// `bad_certificate`, `certificate_unknown`… alert about it, RFC 8446 §6.2).
    case clientCertificateRejected
    /// The configured client certificate or key could not be used: unreadable, not PEM,
    /// not matching each other, or the key's password is wrong.
    case clientCertificateUnusable
    /// The configured certificate authorities could not be read (a missing file, no
    /// certificate in the PEM data).
    case certificateAuthoritiesUnusable
    /// Client and server have no TLS version in common, such as a server that stops at TLS
    /// 1.2 and a client whose ``CurlTransport/Configuration-swift.struct/minimumTLSVersion``
    /// is 1.3 (a `protocol_version` alert, RFC 8446 §6.2).
    case protocolVersionRefused
    /// The transport cannot do what its TLS configuration asks: a libcurl too old for an
    /// option (in-memory PEM data needs 7.77), or pinning with `URLSessionTransport` on Linux.
    /// Refused rather than ignored, so that no request goes out less protected than asked.
    case unsupportedConfiguration
    /// Any other TLS failure (no cipher in common, a handshake that broke off…); the
    /// underlying error says what.
    case other

    /// A short explanation, such as "the certificate has expired or is not yet valid".
    public var description: String {
        switch self {
        case .untrustedCertificate: return "the certificate is not issued by a trusted authority"
        case .expiredCertificate: return "the certificate has expired or is not yet valid"
        case .hostnameMismatch: return "the certificate is for another host name"
        case .selfSignedCertificate: return "the certificate is self-signed"
        case .pinMismatch: return "the server's public key matches none of the pinned keys"
        case .clientCertificateRequired: return "the server requires a client certificate"
        case .clientCertificateRejected: return "the server refused the client certificate"
        case .clientCertificateUnusable: return "the client certificate or its key could not be used"
        case .certificateAuthoritiesUnusable: return "the configured certificate authorities could not be read"
        case .protocolVersionRefused: return "client and server have no TLS version in common"
        case .unsupportedConfiguration: return "the transport cannot apply its TLS configuration"
        case .other: return "the TLS handshake failed"
        }
    }
}
