import Foundation

/// A response as an ``HTTPCache`` keeps it: what the server sent, when, and the request
/// header values it was selected by (RFC 9111 §3, §4.1).
///
/// Storages (``HTTPCacheStorage``) keep these as they are given; the cache alone decides
/// what they mean.
public struct CachedResponse: Sendable, Hashable {
    /// The URL of the request it answered (without a fragment): its cache key.
    public var url: URL
    /// The status code.
    public var statusCode: Int
    /// The header fields, updated by every revalidation (RFC 9111 §3.2).
    public var headers: HTTPHeaders
    /// The body, decoded from any content coding.
    public var body: Data
    /// The values the request had of the header fields the response's `Vary` names, names
    /// lower-cased; a field the request did not have is absent (RFC 9111 §4.1).
    public var varyingRequestHeaders: [String: String]
    /// When the request that brought the response (or its latest revalidation) was sent:
    /// `request_time` of RFC 9111 §4.2.3.
    public var requestDate: Date
    /// When that response arrived: `response_time` of RFC 9111 §4.2.3.
    public var responseDate: Date

    /// Creates a stored response.
    public init(
        url: URL, statusCode: Int, headers: HTTPHeaders, body: Data, varyingRequestHeaders: [String: String] = [:],
        requestDate: Date, responseDate: Date
    ) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.varyingRequestHeaders = varyingRequestHeaders
        self.requestDate = requestDate
        self.responseDate = responseDate
    }

    /// About how many bytes the response takes: its body, header fields and URL. Storages
    /// bound their size by it.
    public var cost: Int {
        body.count + url.absoluteString.utf8.count
            + headers.fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
            + varyingRequestHeaders.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 4 } + 64
    }
}
