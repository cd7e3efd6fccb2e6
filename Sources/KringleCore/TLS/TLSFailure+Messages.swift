extension TLSFailure {
    /// The verification failure a TLS library's message names: OpenSSL's X.509 errors
    /// (`X509_verify_cert_error_string`, as curl reports them after "SSL certificate
    /// problem: ") and curl's own host name check ("SSL: no alternative certificate subject
    /// name matches target host name"). OpenSSL 1.1's and 3.0's spellings are both matched
    /// ("self signed", "self-signed"); a message that names none of them is
    /// ``untrustedCertificate``.
    package static func verification(describedBy message: String) -> TLSFailure {
        let text = message.lowercased()
        if text.contains("pinned public key") {
            return .pinMismatch
        }
        if text.contains("expired") || text.contains("not yet valid") {
            return .expiredCertificate
        }
        // A chain that ends in a self-signed root nobody trusts is an untrusted chain
        // (X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN), not a self-signed server certificate
        // (X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT).
        if text.contains("in certificate chain") {
            return .untrustedCertificate
        }
        if text.contains("self-signed certificate") || text.contains("self signed certificate") {
            return .selfSignedCertificate
        }
        let mismatch = [
            "no alternative certificate subject name matches", "subject name does not match",
            "does not match target host name", "hostname mismatch",
        ]
        if mismatch.contains(where: text.contains) {
            return .hostnameMismatch
        }
        return .untrustedCertificate
    }

    /// The failure a TLS alert from the server names (RFC 8446 §6.2), as OpenSSL reports
    /// received alerts ("sslv3 alert …", "tlsv1 alert …", "tlsv13 alert …"); `nil` when the
    /// message names no alert, so that a plain broken connection stays a transport error.
    package static func alert(describedBy message: String) -> TLSFailure? {
        let text = message.lowercased()
        if text.contains("alert certificate required") {
            return .clientCertificateRequired
        }
        // What a server says about the client's certificate.
        let rejected = [
            "alert unknown ca", "alert bad certificate", "alert certificate unknown", "alert unsupported certificate",
            "alert certificate revoked", "alert certificate expired", "alert access denied",
        ]
        if rejected.contains(where: text.contains) {
            return .clientCertificateRejected
        }
        if text.contains("alert protocol version") || text.contains("unsupported protocol") {
            return .protocolVersionRefused
        }
        return text.contains(" alert ") ? .other : nil
    }
}
