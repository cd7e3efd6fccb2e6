/// Why reading a request stopped before it was complete.
enum ReadFailure: Error {
    /// The peer closed or reset the connection mid-request, or the server is shutting down.
    case connectionLost
    /// The bytes break HTTP/1.1 framing; answer with the rejection and close.
    case rejected(RequestRejection)
}
