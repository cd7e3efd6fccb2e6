import Foundation

/// What a ``Transport`` hands back: one HTTP response, exactly as received.
///
/// No redirect has been followed and no status has been judged; the client does both.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code, such as 200 or 404.
    public var statusCode: Int
    /// Every header line, in order, repeated names kept.
    public var headers: HTTPHeaders
    /// The trailer fields that followed a chunked body (RFC 9112 §7.1.2), such as a checksum
    /// computed while the body was sent; empty when there were none or the transport cannot
    /// see them (``URLSessionTransport`` cannot).
    public var trailers: HTTPHeaders
    /// The body, already decoded from any content coding (gzip…).
    public var body: Data
    /// The URL that answered.
    public var url: URL

    /// Creates a response.
    public init(
        statusCode: Int, headers: HTTPHeaders = HTTPHeaders(), trailers: HTTPHeaders = HTTPHeaders(),
        body: Data = Data(), url: URL
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.trailers = trailers
        self.body = body
        self.url = url
    }
}
