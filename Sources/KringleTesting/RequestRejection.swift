/// Why a request was refused before reaching the handler: the status to answer with and a
/// short explanation sent as the response body.
struct RequestRejection: Error, Equatable {
    /// The status code to send, such as 400.
    var status: Int
    /// A one-line reason for the body, such as `missing Host header`.
    var reason: String

    static func badRequest(_ reason: String) -> Self { Self(status: 400, reason: reason) }

    /// RFC 9110 §15.5.14: the body is larger than the server accepts
    /// (``LoopbackServer/Configuration/maximumRequestBodySize``).
    static func contentTooLarge(limit: Int) -> Self {
        Self(status: 413, reason: "request body larger than the server's limit of \(limit) bytes")
    }
}
