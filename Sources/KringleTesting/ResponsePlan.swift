/// How one response goes on the wire, worked out before the first byte is sent.
struct ResponsePlan {
    /// Status line and header section, ending with the empty line.
    var head: [UInt8]
    /// Whether content follows the head (never for HEAD requests or 1xx/204/304).
    var sendsBody: Bool
    /// Whether the body is sent with the chunked transfer coding.
    var chunked: Bool
    /// Whether the server closes the connection after this response.
    var closesConnection: Bool
}
