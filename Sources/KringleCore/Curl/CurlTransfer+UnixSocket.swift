import CCurlShim
import Foundation

// How CurlTransport sends an `http+unix` or `https+unix` URL (``UnixSocketURL``): curl is
// given the socket with `CURLOPT_UNIX_SOCKET_PATH` and an ordinary `http://localhost/…`
// URL with the request's path and query. Everything above the transport (redirects,
// cookies, the cache, logs) keeps seeing the caller's URL.

extension CurlTransfer {
    /// Points the transfer at its Unix socket.
    ///
    /// curl keeps connections to different sockets apart when it reuses one (it compares
    /// the socket path), and never sends a Unix socket's request through a proxy; the
    /// proxy is switched off all the same, so that no environment variable can send the
    /// request elsewhere.
    ///
    /// - Throws: ``CurlError`` when this libcurl was built without Unix socket support.
    func configureUnixSocket(_ socketPath: String) throws(CurlError) {
        try easy.set(KCURLOPT_UNIX_SOCKET_PATH, socketPath)
        try easy.set(KCURLOPT_PROXY, "")
    }
}
