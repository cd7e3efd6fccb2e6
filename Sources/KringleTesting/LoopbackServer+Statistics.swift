extension LoopbackServer {
    /// Counters describing what a server has done so far.
    ///
    /// Read them with ``LoopbackServer/statistics``, or block until they reach a state with
    /// ``LoopbackServer/waitForStatistics(timeout:until:)``.
    ///
    /// ```swift
    /// // After the client cancelled a slow request:
    /// #expect(server.waitForStatistics { $0.connectionsClosedByPeer == 1 })
    /// #expect(server.statistics.responsesCompleted == 0)
    /// ```
    public struct Statistics: Sendable, Equatable, CustomStringConvertible {
        /// Connections accepted from clients.
        public var connectionsAccepted: Int

        /// Requests read completely (header section and body) and passed to the handler.
        public var requestsReceived: Int

        /// Responses whose last byte was handed to the kernel without error. Responses sent
        /// with ``Behavior/closeMidBody``, ``Behavior/resetMidBody`` and friends are not counted.
        public var responsesCompleted: Int

        /// Connections the client closed or reset while it still had something outstanding: in
        /// the middle of sending a request, while its response was delayed, or while the
        /// response was being written. That is, the client gave up. Closing an idle keep-alive
        /// connection is not counted.
        ///
        /// A client that half-closes (shuts down its sending side) during a delay is treated as
        /// having given up too, as HTTP servers commonly do.
        public var connectionsClosedByPeer: Int

        /// Requests the server itself refused because they broke HTTP/1.1 rules or the
        /// server's limits (answered with 400, 413, 417, 431, 501 or 505 and the connection
        /// closed); the handler never saw them.
        public var requestsRejected: Int

        /// Connections accepted while ``Configuration/maximumConnections`` were already open,
        /// and so answered `503 Service Unavailable` (or, past
        /// ``Configuration/refusingConnectionLimit`` refusals at once, closed unanswered).
        /// They are counted in ``connectionsAccepted`` too; the handler never sees them.
        public var connectionsRefused: Int

        /// Creates a set of counters; all zero by default.
        public init(
            connectionsAccepted: Int = 0,
            requestsReceived: Int = 0,
            responsesCompleted: Int = 0,
            connectionsClosedByPeer: Int = 0,
            requestsRejected: Int = 0,
            connectionsRefused: Int = 0
        ) {
            self.connectionsAccepted = connectionsAccepted
            self.requestsReceived = requestsReceived
            self.responsesCompleted = responsesCompleted
            self.connectionsClosedByPeer = connectionsClosedByPeer
            self.requestsRejected = requestsRejected
            self.connectionsRefused = connectionsRefused
        }

        /// All counters on one line, for test failure messages.
        public var description: String {
            "accepted \(connectionsAccepted), received \(requestsReceived), completed \(responsesCompleted), "
                + "closedByPeer \(connectionsClosedByPeer), rejected \(requestsRejected), refused \(connectionsRefused)"
        }
    }
}
