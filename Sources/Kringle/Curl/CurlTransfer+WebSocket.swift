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
}

/// A share handle that holds one WebSocket's connection, apart from the multi handle's cache.
///
/// Detached from its easy handle (``detach(from:)``) before it is freed: curl refuses to free
/// a share still in use.
final class CurlConnectionShare {
    private let pointer: OpaquePointer

    init?() {
        guard let pointer = kcurl_connection_share_create() else { return nil }
        self.pointer = pointer
    }

    func attach(to easy: EasyHandle) throws(CurlError) {
        let code = kcurl_easy_setopt_share(easy.pointer, pointer)
        guard code == 0 else {
            throw CurlError(code: Int(code), message: String(cString: kcurl_easy_strerror(code)))
        }
    }

    /// Takes the share from `easy`, which must be out of the multi handle: its connection
    /// was closed there.
    func detach(from easy: EasyHandle) {
        _ = kcurl_easy_setopt_share(easy.pointer, nil)
    }

    deinit {
        kcurl_connection_share_destroy(pointer)
    }
}
