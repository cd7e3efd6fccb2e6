import CCurlShim
import Foundation

extension CurlTransfer {
    /// Sets the server's TLS options of the transport's configuration, for an https URL:
    /// verification, trusted authorities, pins, how fresh trust is on a new connection
    /// (`configureRotation(_:)`), the client certificate and the lowest version. An HTTPS
    /// proxy's options are set for every URL, with the connection's
    /// (`configureProxyTLS` in CurlTransfer.swift, which also refuses a CA file and CA data
    /// set together before this runs).
    ///
    /// - Throws: `KringleError.tls` with ``TLSFailure/unsupportedConfiguration`` when this
    ///   libcurl lacks an option the configuration needs (so that no request goes out less
    ///   protected than configured); ``CurlError`` when curl refuses an option otherwise.
    func configureTLS(_ configuration: CurlTransport.Configuration) throws {
        if !configuration.verifiesCertificates {
            try easy.set(KCURLOPT_SSL_VERIFYPEER, false)
            try easy.set(KCURLOPT_SSL_VERIFYHOST, 0)
        }
        if let file = configuration.certificateAuthorityFile {
            try easy.set(KCURLOPT_CAINFO, file)
        }
        if let pem = configuration.certificateAuthorityPEM {
            try required("CURLOPT_CAINFO_BLOB", since: "7.77") { () throws(CurlError) in
                try easy.set(KCURLOPT_CAINFO_BLOB, blob: pem)
            }
        }
        if !configuration.pinnedPublicKeys.isEmpty {
            // "sha256//<base64>;sha256//<base64>": any one of them may match.
            let pins = configuration.pinnedPublicKeys.map(\.description).joined(separator: ";")
            try required("CURLOPT_PINNEDPUBLICKEY with sha256 pins", since: "7.44") { () throws(CurlError) in
                try easy.set(KCURLOPT_PINNEDPUBLICKEY, pins)
            }
        }
        try configureRotation(configuration)
        if let client = configuration.clientCertificate {
            try configure(client)
        }
        let version: Int
        switch configuration.minimumTLSVersion {
        case .tls1_2: version = Int(KCURL_SSLVERSION_TLSv1_2)
        case .tls1_3: version = Int(KCURL_SSLVERSION_TLSv1_3)
        }
        try required("CURLOPT_SSLVERSION for TLS 1.2 or 1.3", since: "7.52") { () throws(CurlError) in
            try easy.set(KCURLOPT_SSLVERSION, version)
        }
    }

    /// The rotation rule of `CurlTransport.Configuration`: when the transport sets its own
    /// trust, each new connection makes a full handshake, checked against the CA file as it
    /// is at that moment and against the pins. A connection already open keeps its handshake
    /// until `CURLOPT_MAXLIFETIME_CONN` retires it (CurlTransfer+Pool.swift).
    private func configureRotation(_ configuration: CurlTransport.Configuration) throws {
        let ownAuthorities =
            configuration.certificateAuthorityFile != nil || configuration.certificateAuthorityPEM != nil
        if ownAuthorities {
            // "Instead of the system's", as documented: a libcurl built with a CA directory
            // (Debian's and Ubuntu's: /etc/ssl/certs) loads it beside CURLOPT_CAINFO or
            // CURLOPT_CAINFO_BLOB (populate_x509_store, lib/vtls/openssl.c), which would trust
            // every system authority too. A TLS library without CA directories refuses the
            // option, and then has none to load.
            try? easy.set(KCURLOPT_CAPATH, pointer: nil)
        }
        if configuration.certificateAuthorityFile != nil {
            // CURLOPT_CA_CACHE_TIMEOUT(3): from 7.87 libcurl keeps the store it built from
            // CURLOPT_CAINFO for 24 hours, per multi handle, found again by the file's path
            // and not its contents, so a rewritten file would go unseen for a day. 0 turns
            // the cache off: every new connection reads the file. A libcurl older than 7.87
            // has no such cache (nor the option) and reads it every time already.
            try? easy.set(KCURLOPT_CA_CACHE_TIMEOUT, 0)
        }
        if ownAuthorities || !configuration.pinnedPublicKeys.isEmpty {
            // CURLOPT_SSL_SESSIONID_CACHE(3): a resumed session (RFC 8446 §2.2, RFC 5246
            // §7.3) carries no certificate; it keeps the verification and the key of the
            // handshake that made it, so a new connection resuming it would never see a CA
            // removed from the file nor a server's new, unpinned key.
            try easy.set(KCURLOPT_SSL_SESSIONID_CACHE, false)
        }
    }

    private func configure(_ client: CurlTransport.ClientCertificate) throws {
        switch client.certificate {
        case .file(let path):
            try easy.set(KCURLOPT_SSLCERT, path)
        case .pem(let data):
            try required("CURLOPT_SSLCERT_BLOB", since: "7.71") { () throws(CurlError) in
                try easy.set(KCURLOPT_SSLCERT_BLOB, blob: data)
            }
        }
        switch client.key {
        case .file(let path)?:
            try easy.set(KCURLOPT_SSLKEY, path)
        case .pem(let data)?:
            try required("CURLOPT_SSLKEY_BLOB", since: "7.71") { () throws(CurlError) in
                try easy.set(KCURLOPT_SSLKEY_BLOB, blob: data)
            }
        case nil:
            break  // curl reads the key from the certificate's PEM
        }
        if let password = client.keyPassword {
            try easy.set(KCURLOPT_KEYPASSWD, password)
        }
    }

    /// Runs `set`, turning curl's "unknown option" or "not built in" into
    /// ``TLSFailure/unsupportedConfiguration`` with a message that names the option and the
    /// libcurl release that added it.
    private func required(_ option: String, since release: String, _ set: () throws(CurlError) -> Void) throws {
        do {
            try set()
        } catch {
            guard error.code == Int(KCURLE_UNKNOWN_OPTION) || error.code == Int(KCURLE_NOT_BUILT_IN) else {
                throw error
            }
            let library = CurlLibrary.version ?? "this libcurl"
            let explained = CurlError(
                code: error.code,
                message:
                    "\(library) cannot set \(option) (libcurl \(release) or later, built with a TLS library that supports it): \(error.message)"
            )
            throw KringleError.tls(submission.plan.requestURL, .unsupportedConfiguration, underlying: explained)
        }
    }
}
