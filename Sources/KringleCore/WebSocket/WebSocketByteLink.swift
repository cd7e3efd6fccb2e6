/// The socket under a ``WebSocketSession``: an open connection whose bytes a transport moves
/// (curl's, ``CurlWebSocketLink``), once the opening handshake is over.
///
/// The link calls back into its session from its own thread: ``WebSocketSession/received(_:)``
/// with what arrived, ``WebSocketSession/wrote(_:)`` as queued bytes leave, and
/// ``WebSocketSession/linkEnded(_:)`` once, when the socket is gone.
protocol WebSocketByteLink: AnyObject, Sendable {
    /// Queues `bytes` behind the ones before them; from any thread.
    func write(_ bytes: [UInt8])

    /// Reads again after ``WebSocketSession/received(_:)`` asked for a pause; from any thread.
    func resumeReading()

    /// Closes the socket, once what is queued has gone when `flushing`, else at once; the
    /// session is told with ``WebSocketSession/linkEnded(_:)``.
    func shutdown(flushing: Bool)
}
