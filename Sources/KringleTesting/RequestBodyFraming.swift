/// How the body of a request is delimited (RFC 9112 §6.3).
enum RequestBodyFraming: Equatable {
    /// No body: neither `Content-Length` nor `Transfer-Encoding` was sent (§6.3 rule 7).
    case none
    /// Exactly this many bytes follow the header section (§6.3 rule 6).
    case length(Int)
    /// The chunked transfer coding delimits the body (§6.3 rule 4, §7.1).
    case chunked
}
