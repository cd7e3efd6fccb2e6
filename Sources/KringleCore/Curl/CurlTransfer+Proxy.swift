import CCurlShim
import Foundation

extension CurlTransfer {
    /// Tells curl which way this request goes, as the transport's ``ProxyRoutes`` decide for
    /// its URL: every option explicit, so that libcurl never reads the environment itself
    /// (its rules differ from ``CurlTransport/Proxy/environment``'s).
    ///
    /// - Throws: `KringleError.unsupportedConfiguration` when the proxy the request would
    ///   use cannot be used (nothing is sent another way); ``CurlError`` when curl refuses an
    ///   option.
    func configureProxy(_ routes: ProxyRoutes, _ configuration: CurlTransport.Configuration) throws {
        // The URL is looked at only when a proxy applies and a no-proxy list is set.
        switch routes.decision(isHTTPS: submission.plan.isHTTPS, url: { submission.plan.requestURL }) {
        case .leftToLibcurl:
            break
        case .route(.direct):
            // An empty proxy overrides the environment: curl then connects directly.
            try easy.set(KCURLOPT_PROXY, "")
        case .route(.refused(let reason)):
            throw KringleError.unsupportedConfiguration(reason)
        case .route(.proxy(let server)):
            proxy = server
            try easy.set(KCURLOPT_PROXY, server.curlURL)
            // Kringle has matched the no-proxy list already; curl must not apply `no_proxy`
            // from the environment on top of it.
            try easy.set(KCURLOPT_NOPROXY, "")
            if let username = server.username {
                try easy.set(KCURLOPT_PROXYUSERNAME, username)
            }
            if let password = server.password {
                try easy.set(KCURLOPT_PROXYPASSWORD, password)
            }
            if server.kind == .https {
                // The proxy's own TLS is held to the same lowest version as the server's
                // (`CURLOPT_PROXY_SSLVERSION`, curl 7.52 or later, like the other
                // `CURLOPT_PROXY_*` TLS options).
                let version =
                    switch configuration.minimumTLSVersion {
                    case .tls1_2: KCURL_SSLVERSION_TLSv1_2
                    case .tls1_3: KCURL_SSLVERSION_TLSv1_3
                    }
                try easy.set(KCURLOPT_PROXY_SSLVERSION, Int(version))
            }
        }
    }
}
