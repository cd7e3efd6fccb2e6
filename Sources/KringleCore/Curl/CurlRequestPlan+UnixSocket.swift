import Foundation

// How CurlTransport sends an `http+unix` or `https+unix` URL (``UnixSocketURL``): curl is
// given the socket with `CURLOPT_UNIX_SOCKET_PATH` and an ordinary `http://localhost/…`
// URL with the request's path and query. Everything above the transport (redirects,
// cookies, the cache, logs) keeps seeing the caller's URL.

extension CurlRequestPlan {
    /// What curl is told for a URL on a Unix socket.
    struct UnixSocketTarget {
        /// The socket's file system path, for `CURLOPT_UNIX_SOCKET_PATH`.
        let socketPath: String
        /// `http://localhost/path?query` (or `https`), for `CURLOPT_URL`: curl sends the
        /// path and query as the request target and `localhost` as the `Host` field.
        let curlURL: String
        /// Whether TLS is spoken over the socket.
        let usesTLS: Bool
    }

    /// The socket and curl URL for `url` when it is an `http+unix` or `https+unix` URL;
    /// `nil` for any other scheme.
    ///
    /// Called only for a URL whose scheme is neither http nor https, so the usual request
    /// never comes here.
    ///
    /// - Throws: `KringleError.invalidRequest` for a Unix socket URL that names no socket, a
    ///   port or user information, or a path too long for a socket address.
    static func unixSocketTarget(of url: URL) throws(KringleError) -> UnixSocketTarget? {
        guard UnixSocketURL.isUnixSocket(url) else { return nil }
        guard let socket = UnixSocketURL(url) else {
            throw .invalidRequest(
                "\(Redaction.default.redacting(url)) names no Unix socket: an http+unix URL has the socket's path, percent-encoded, as its host (http+unix://%2Fvar%2Frun%2Fdocker.sock/path), and no port or user."
            )
        }
        if let problem = socket.problem { throw .invalidRequest(problem) }
        return UnixSocketTarget(
            socketPath: socket.socketPath, curlURL: socket.localhostURL(for: url), usesTLS: socket.usesTLS)
    }

    /// The URL whose scheme, host and port name the server for the connection limits
    /// (``CurlAdmission/hostKey(ofURL:)``): the caller's URL for a Unix socket, so that each
    /// socket waits in a queue of its own rather than in `localhost`'s.
    var admissionURL: String {
        unixSocketPath == nil ? url : requestURL.absoluteString
    }
}
