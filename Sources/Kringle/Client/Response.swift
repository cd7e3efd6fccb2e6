import Foundation

/// A decoded response: the value together with the HTTP details it came with.
public struct Response<Value: Sendable>: Sendable {
    /// The decoded value.
    public var value: Value
    /// The status code of the final response (after redirects).
    public var statusCode: Int
    /// The headers of the final response.
    public var headers: HTTPHeaders
    /// The raw body the value was decoded from.
    public var body: Data
    /// The URL of the final response (after redirects).
    public var url: URL

    /// Creates a response.
    public init(value: Value, statusCode: Int, headers: HTTPHeaders, body: Data, url: URL) {
        self.value = value
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.url = url
    }
}

extension Response where Value == Data {
    /// The raw form of a transport's response.
    init(_ response: HTTPResponse) {
        self.init(
            value: response.body,
            statusCode: response.statusCode,
            headers: response.headers,
            body: response.body,
            url: response.url
        )
    }
}
