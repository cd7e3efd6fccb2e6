import CCurlShim

extension CurlError {
    /// Which part of TLS this failure is about, or `nil` when it is not about TLS.
    ///
    /// curl's code says where it failed (60: the server's certificate did not verify; 35: the
    /// handshake; 56 and 55: a TLS alert that arrived after the handshake, as TLS 1.3's
    /// `certificate_required` does, RFC 8446 §4.4.2.4), and the message from the error
    /// buffer says why: with OpenSSL it carries the X.509 verification error
    /// ("certificate has expired") or the alert's name ("tlsv13 alert certificate
    /// required"). Other TLS libraries word less, and then a verification failure is
    /// ``TLSFailure/untrustedCertificate`` and a handshake failure ``TLSFailure/other``.
    var tlsFailure: TLSFailure? {
        switch code {
        case Int(KCURLE_SSL_PINNEDPUBKEYNOTMATCH):
            return .pinMismatch
        case Int(KCURLE_SSL_CERTPROBLEM):
            return .clientCertificateUnusable
        case Int(KCURLE_SSL_CACERT_BADFILE):
            return .certificateAuthoritiesUnusable
        case Int(KCURLE_PEER_FAILED_VERIFICATION):
            return .verification(describedBy: message)
        case Int(KCURLE_SSL_CONNECT_ERROR), Int(KCURLE_SSL_CIPHER):
            // A connection that broke during the handshake stays a transport error, which
            // `RetryPolicy` may resend (`requestNeverCompleted`): the next try may succeed.
            if Self.brokenConnectionWords.contains(where: message.lowercased().contains) { return nil }
            return .alert(describedBy: message) ?? .other
        case Int(KCURLE_SEND_ERROR), Int(KCURLE_RECV_ERROR):
            // Mostly a broken connection, which is not about TLS; an alert is.
            return .alert(describedBy: message)
        case Self.clientCertificateCode:
            return .clientCertificateRequired
        default:
            return nil
        }
    }

    /// How OpenSSL and curl word a connection that ended under the handshake.
    private static let brokenConnectionWords = [
        "connection reset", "ssl_error_syscall", "unexpected eof", "broken pipe", "connection refused",
    ]

    /// `CURLE_SSL_CLIENTCERT` (curl 7.73+): the TLS library reported the server's demand for a
    /// client certificate itself (Schannel, Secure Transport).
    private static let clientCertificateCode = 98
}
