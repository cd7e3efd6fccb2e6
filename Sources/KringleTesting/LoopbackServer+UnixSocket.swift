import Foundation
import Kringle

extension LoopbackServer {
    /// Starts a server listening on a Unix domain socket at `unixSocketPath`, for testing a
    /// client that talks to a local daemon (the Docker Engine, containerd, a sidecar).
    ///
    /// ``baseURL`` is then the socket's `http+unix` URL (see `UnixSocketURL`), such as
    /// `http+unix://%2Ftmp%2Fapi.sock`, and ``url(_:)`` builds URLs on it; ``port`` is 0. The
    /// server speaks HTTP/1.1 over the socket exactly as it does over TCP. ``shutdown()``
    /// (or `deinit`) removes the socket file.
    ///
    /// ```swift
    /// let path = FileManager.default.temporaryDirectory.appendingPathComponent("api.sock").path
    /// let server = try LoopbackServer(unixSocketPath: path) { _ in .json(#"[{"Id": "4c01db0b339c"}]"#) }
    /// defer { server.shutdown() }
    /// server.url("/containers/json")  // http+unix://%2Ftmp%2Fapi.sock/containers/json
    /// let response = try await CurlTransport().send(HTTPRequest(url: server.url("/containers/json"))).value
    /// ```
    ///
    /// - Parameters:
    ///   - unixSocketPath: where the socket is created: a path that does not exist yet, in a
    ///     directory the process may write to, at most `UnixSocketURL.maximumPathLength`
    ///     bytes long (keep it short: a socket address holds about a hundred bytes).
    ///   - configuration: the request body and connection limits; see ``Configuration``.
    ///   - handler: called once per request, as for a server on 127.0.0.1.
    /// - Throws: ``LoopbackServerError`` if the socket cannot be created or bound: `bind`
    ///   fails with `EADDRINUSE` when a file is at `unixSocketPath` already (it is left
    ///   alone), with `ENAMETOOLONG` when the path is too long.
    public convenience init(
        unixSocketPath: String,
        configuration: Configuration = Configuration(),
        handler: @escaping @Sendable (Request) -> Response
    ) throws(LoopbackServerError) {
        let core = try ServerCore(configuration: configuration, unixSocketPath: unixSocketPath, handler: handler)
        self.init(core: core, baseURL: UnixSocketURL(socketPath: unixSocketPath).url)
    }
}
