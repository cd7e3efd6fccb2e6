import Foundation

// What a redirect may do on a Unix socket (issue 32; see UnixSocketURL). A relative
// `Location` already stays on the socket: it resolves against the socket's URL.

extension Redirect {
    /// Where a redirect from `source` to `target` leads when either is on a Unix socket, or
    /// `nil` when it must not be followed (the client then refuses it with
    /// `KringleError.insecureRedirect`); `target` itself when neither is.
    ///
    /// - A hop onto a Unix socket is followed only from the same socket, with the same
    ///   scheme: a server on the network must not steer the client into a local socket (the
    ///   Docker Engine's, say), and one local daemon has no business sending it into another.
    /// - A server behind a socket knows itself only by the `Host: localhost` it was sent, so
    ///   an absolute `Location` back to `http://localhost/…` (`https` for `https+unix`, on
    ///   the default port, without user information: nginx's redirect from `/dir` to
    ///   `/dir/`, say) names the socket, and stays on it, rather than reach whatever listens
    ///   on the loopback interface's port 80.
    /// - Any other hop from a socket to the network is followed as a hop to another origin.
    static func followingUnixSocket(_ target: URL, from source: URL) -> URL? {
        let fromSocket = UnixSocketURL(source)
        if let socket = UnixSocketURL(target) {
            return socket == fromSocket ? target : nil
        }
        guard let fromSocket, names(localhostOf: fromSocket, target),
            var components = URLComponents(url: target, resolvingAgainstBaseURL: false)
        else { return target }
        components.scheme = fromSocket.usesTLS ? UnixSocketURL.tlsScheme : UnixSocketURL.plainScheme
        components.percentEncodedHost = fromSocket.encodedHost
        components.port = nil
        return components.url
    }

    /// Whether `target` is the `localhost` URL the socket's server was sent.
    private static func names(localhostOf socket: UnixSocketURL, _ target: URL) -> Bool {
        guard let scheme = target.scheme?.lowercased(), scheme == (socket.usesTLS ? "https" : "http"),
            target.host(percentEncoded: false)?.lowercased() == "localhost",
            target.user == nil, target.password == nil
        else { return false }
        return target.port == nil || target.port == (socket.usesTLS ? 443 : 80)
    }

    /// Whether `url` travels encrypted: `https`, or `https+unix`.
    static func isSecure(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return scheme == "https" || scheme == UnixSocketURL.tlsScheme
    }
}
