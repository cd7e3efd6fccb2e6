extension LoopbackServer {
    /// Limits that keep a client, buggy or hostile, from exhausting the test process that
    /// runs a ``LoopbackServer``.
    ///
    /// The server holds each request body in memory and serves each connection on a thread
    /// of its own, so both are bounded by default. A request whose body is larger than
    /// ``maximumRequestBodySize`` gets `413 Content Too Large` and a closed connection, without
    /// the server reading (or reserving memory for) the body; a connection beyond
    /// ``maximumConnections`` gets `503 Service Unavailable` to its first request and is closed.
    /// Both are counted in ``Statistics``.
    ///
    /// ```swift
    /// // An upload test that sends 1 GB, and a load test that opens 500 connections:
    /// let uploads = try LoopbackServer(configuration: .init(maximumRequestBodySize: 1 << 30)) { request in
    ///     .text("\(request.body.count)")
    /// }
    /// let crowd = try LoopbackServer(configuration: .init(maximumConnections: 600)) { _ in .status(204) }
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// The largest request body accepted, in bytes (after removing the chunked coding);
        /// 256 MiB by default; `nil` sets no limit.
        ///
        /// A `Content-Length` above the limit is refused as soon as the header section has
        /// arrived (before `100 Continue`, RFC 9110 §10.1.1, so a waiting client sends nothing);
        /// a chunked body as soon as its chunks add up to more. Either way the answer is
        /// `413 Content Too Large` (RFC 9110 §15.5.14) and the connection is closed, since the
        /// rest of the body is never read. The handler does not see the request.
        public var maximumRequestBodySize: Int?

        /// The most connections served at once; 128 by default; `nil` sets no limit.
        ///
        /// A connection accepted while that many are open is answered `503 Service
        /// Unavailable` (RFC 9110 §15.6.4) once its first request head has arrived, then
        /// closed; counted in ``Statistics/connectionsRefused``. Up to
        /// ``refusingConnectionLimit`` refusals are in progress at a time; a connection
        /// beyond even that is closed at once, with no answer.
        public var maximumConnections: Int?

        /// How many refused connections may wait for their request head at once; each has
        /// a thread for at most ``refusalReadTimeout`` seconds.
        public static let refusingConnectionLimit = 16

        /// How long a refused connection is given to send its request head before it is
        /// closed without an answer, in seconds.
        public static let refusalReadTimeout = 10

        /// Creates a configuration; every parameter has the default described on its property.
        ///
        /// - Parameters:
        ///   - maximumRequestBodySize: the largest request body, in bytes; at least 0.
        ///   - maximumConnections: the most connections served at once; at least 1.
        public init(maximumRequestBodySize: Int? = 256 << 20, maximumConnections: Int? = 128) {
            self.maximumRequestBodySize = maximumRequestBodySize.map { max(0, $0) }
            self.maximumConnections = maximumConnections.map { max(1, $0) }
        }
    }
}
