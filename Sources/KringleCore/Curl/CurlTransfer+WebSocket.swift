import CCurlShim

extension CurlTransfer {
    /// Makes the transfer connect and stop there, for a WebSocket (``CurlWebSocketLink``):
    /// through a proxy by its tunnel, over TLS by HTTP/1.1 (an `h2` chosen by ALPN could not
    /// carry the RFC 6455 upgrade), with the connection kept in a share of its own (see
    /// kcurl_sockets.c).
    func configureConnectOnly() throws {
        ThreadConfinement.assertOnDrivingThread()
        guard kcurl_has_connect_only() == 1 else {
            throw KringleError.unsupportedConfiguration(
                "This libcurl lacks curl_easy_send, curl_easy_recv or the share interface that WebSockets need.")
        }
        try easy.set(KCURLOPT_CONNECT_ONLY, true)
        // Ignored without an HTTP proxy; with one, a plain ws:// URL gets a tunnel too.
        try easy.set(KCURLOPT_HTTPPROXYTUNNEL, true)
        try easy.set(KCURLOPT_HTTP_VERSION, Int(KCURL_HTTP_VERSION_1_1))
        guard let share = CurlConnectionShare() else {
            throw CurlError(code: CurlError.failedInitialization, message: "curl_share_init failed")
        }
        connectionShare = share
        try share.attach(to: easy)
    }

    /// Takes a WebSocket's share from the handle, which must be out of the multi handle (its
    /// connection was closed there); nothing for other transfers.
    func releaseConnectionShare() {
        connectionShare?.detach(from: easy)
        connectionShare = nil
    }
}
