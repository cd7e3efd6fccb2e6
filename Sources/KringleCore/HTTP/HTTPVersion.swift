/// The version of HTTP a response came in (RFC 9110 §2.5).
public enum HTTPVersion: String, Sendable, Hashable, CustomStringConvertible {
    // swift-format-ignore: AlwaysUseLowerCamelCase
    // (Spelled as the protocol is: `http10` would read as a version ten.)
    /// HTTP/1.0.
    case http1_0 = "HTTP/1.0"
    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// HTTP/1.1 (RFC 9112).
    case http1_1 = "HTTP/1.1"
    /// HTTP/2 (RFC 9113).
    case http2 = "HTTP/2"
    /// HTTP/3 (RFC 9114).
    case http3 = "HTTP/3"

    /// As a status line writes it: `HTTP/1.1`, `HTTP/2`.
    public var description: String { rawValue }
}
