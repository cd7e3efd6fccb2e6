import Foundation
// An `@_exported import` declares no type, so it lives in the file of the module's main type:
// test targets that import KringleTesting get Kringle (and the promise API) too.
@_exported import Kringle

/// A real HTTP/1.1 server on 127.0.0.1, for testing HTTP clients against actual sockets.
///
/// The server binds an ephemeral port and starts serving as soon as it is created. Each
/// connection gets its own thread, so a slow or delayed response holds up only its own
/// connection. Requests are passed to a handler closure, which returns the response.
///
/// It speaks enough HTTP/1.1 for real clients (URLSession, libcurl, `curl`): persistent
/// connections, `Content-Length` and chunked request bodies, `Expect: 100-continue`, HEAD,
/// repeated header fields, and it can misbehave on request (delays, truncated bodies, closed
/// or reset connections). Malformed requests get a 400 and a closed connection; no client
/// behavior can crash the process.
///
/// ```swift
/// import Testing
/// import KringleTesting
///
/// @Test func fetchesGreeting() async throws {
///     let server = try LoopbackServer { request in
///         request.path == "/hello" ? .json(#"{"greeting": "hi"}"#) : .status(404)
///     }
///     defer { server.shutdown() }
///
///     let (data, _) = try await URLSession.shared.data(from: server.url("/hello"))
///     #expect(String(decoding: data, as: UTF8.self).contains("hi"))
///     #expect(server.statistics.requestsReceived == 1)
/// }
/// ```
///
/// The handler runs on the connection's thread, possibly on several threads at once, so it
/// must be `@Sendable`; keep shared test state in a `Mutex`.
///
/// Request bodies (256 MiB) and open connections (128) are limited by default, so that a
/// runaway client fails its test with a `413` or `503` instead of exhausting the process;
/// see ``Configuration``.
public final class LoopbackServer: Sendable {
    /// The port the server listens on, chosen by the kernel; 0 for a server on a Unix
    /// socket.
    public let port: Int

    /// The server's root URL, `http://127.0.0.1:<port>`; for a server on a Unix socket,
    /// `http+unix://` and the socket's path, percent-encoded (see ``init(unixSocketPath:configuration:handler:)``).
    public let baseURL: URL

    /// The Unix domain socket the server listens on, or `nil` for a server on 127.0.0.1.
    public let unixSocketPath: String?

    /// The limits the server was started with.
    public let configuration: Configuration

    private let core: ServerCore

    /// Starts a server on 127.0.0.1 with an ephemeral port.
    ///
    /// ```swift
    /// let server = try LoopbackServer { request in
    ///     .text("You asked for \(request.path)")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: the request body and connection limits; see ``Configuration``.
    ///   - handler: called once per request, on the connection's thread, after the whole
    ///     request (body included) has arrived. Its response is written back unless the
    ///     client has gone away.
    /// - Throws: ``LoopbackServerError`` if the socket cannot be created, bound or listened on.
    public convenience init(
        configuration: Configuration = Configuration(),
        handler: @escaping @Sendable (Request) -> Response
    ) throws(LoopbackServerError) {
        let core = try ServerCore(configuration: configuration, handler: handler)
        var components = URLComponents()
        components.scheme = "http"
        components.host = "127.0.0.1"
        components.port = core.port
        guard let baseURL = components.url else {
            // Unreachable for any valid port; reported rather than trapping all the same.
            core.shutdown()
            throw .socketCallFailed(call: "URLComponents.url", errno: 0)
        }
        self.init(core: core, baseURL: baseURL)
    }

    /// Starts serving what `core` accepts, at `baseURL`.
    init(core: ServerCore, baseURL: URL) {
        self.core = core
        self.configuration = core.configuration
        self.port = core.port
        self.baseURL = baseURL
        self.unixSocketPath = core.unixSocketPath
        core.start()
    }

    deinit {
        core.shutdown()
    }

    /// A URL on this server for a path, optionally with a query.
    ///
    /// ```swift
    /// server.url("/search?q=swift")  // http://127.0.0.1:54321/search?q=swift
    /// server.url("items")            // http://127.0.0.1:54321/items
    /// ```
    ///
    /// - Parameter pathAndQuery: an absolute path (a leading `/` is added if missing) with an
    ///   optional `?query`. Characters not allowed in URLs, such as spaces, are
    ///   percent-encoded; existing escapes are kept.
    /// - Returns: the URL, or ``baseURL`` if the text cannot form a URL even after encoding.
    public func url(_ pathAndQuery: String) -> URL {
        let suffix = pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
        let base = baseURL.absoluteString
        if let url = URL(string: base + suffix) { return url }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.insert("%")
        if let encoded = suffix.addingPercentEncoding(withAllowedCharacters: allowed),
            let url = URL(string: base + encoded)
        {
            return url
        }
        return baseURL
    }

    /// Counters of connections, requests and responses so far.
    ///
    /// ```swift
    /// #expect(server.statistics.connectionsAccepted == 1)  // both requests reused one connection
    /// ```
    public var statistics: Statistics {
        core.statistics
    }

    /// What WebSocket clients sent to the server (see ``Response/webSocket(_:subprotocol:headers:)``),
    /// on every connection, in the order the server read it: whole messages, pings, pongs,
    /// close frames with their status codes, and protocol violations.
    ///
    /// Recorded as each frame is read, on the connection threads: the client may have sent
    /// something the server has not read yet; ``waitForWebSocketTranscript(timeout:until:)``
    /// waits for it.
    ///
    /// ```swift
    /// try await socket.close(code: WebSocketCloseCode(rawValue: 4000), reason: "bye").value
    /// #expect(server.webSocketTranscript.map(\.event).last == .close(WebSocketCloseCode(rawValue: 4000), reason: "bye"))
    /// ```
    public var webSocketTranscript: [WebSocketTranscriptEntry] {
        core.webSocketTranscript.snapshot
    }

    /// Blocks until ``webSocketTranscript`` satisfies `condition`, or `timeout` seconds pass.
    ///
    /// Wakes on every entry rather than polling, so a test can wait for what a client sends
    /// (a ping its timer sends, the close frame that fails a connection) without sleeping.
    ///
    /// ```swift
    /// clock.advance(by: 30)  // the client's ping interval
    /// #expect(server.waitForWebSocketTranscript { $0.contains { if case .ping = $0.event { true } else { false } } })
    /// ```
    ///
    /// - Parameters:
    ///   - timeout: the longest wait, in seconds; 10 by default.
    ///   - condition: evaluated on the entries so far, outside any server lock.
    /// - Returns: whether `condition` held before the timeout.
    public func waitForWebSocketTranscript(
        timeout: TimeInterval = 10,
        until condition: ([WebSocketTranscriptEntry]) -> Bool
    ) -> Bool {
        core.webSocketTranscript.wait(timeout: timeout, until: condition)
    }

    /// Blocks until the counters satisfy `condition`, or `timeout` seconds pass.
    ///
    /// Wakes on every counter change rather than polling, so tests can wait for something
    /// that happens on a server thread (a client's disconnect being noticed, a response
    /// finishing) without sleeping. A generous timeout costs nothing when things work.
    ///
    /// ```swift
    /// task.cancel()
    /// #expect(server.waitForStatistics(timeout: 10) { $0.connectionsClosedByPeer == 1 })
    /// ```
    ///
    /// - Parameters:
    ///   - timeout: the longest wait, in seconds; 10 by default.
    ///   - condition: evaluated on a snapshot of the counters, outside any server lock.
    /// - Returns: whether `condition` held before the timeout.
    public func waitForStatistics(timeout: TimeInterval = 10, until condition: (Statistics) -> Bool) -> Bool {
        core.waitForStatistics(timeout: timeout, until: condition)
    }

    /// Stops the server: closes the listener and every open connection, and waits for all
    /// server threads to finish.
    ///
    /// After it returns no handler is running or will run, and the port is free (a Unix
    /// socket's file is removed). Delayed
    /// responses are abandoned; a handler that is running is waited for, so a handler that
    /// never returns keeps `shutdown` from returning. Calling it again does nothing more
    /// (it still waits until the threads have finished). Also called by `deinit`.
    ///
    /// Called from inside a handler, it shuts everything down but cannot wait for the
    /// handler's own thread, so it returns without joining the server threads.
    ///
    /// ```swift
    /// let server = try LoopbackServer { _ in .status(204) }
    /// defer { server.shutdown() }
    /// ```
    public func shutdown() {
        core.shutdown()
    }
}
