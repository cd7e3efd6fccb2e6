/// A failed `send(2)`: the peer closed or reset the connection, or the server shut it down.
struct WriteFailure: Error {
    /// The `errno` of the failed call, such as `EPIPE` or `ECONNRESET`.
    var errno: Int32
}
