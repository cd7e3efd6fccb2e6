import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns an endpoint, a method and a body into a `URLRequest`.
enum RequestBuilding {
    /// A request whose body, if any, is in memory (a multipart body is an error here).
    static func request(
        _ method: HTTPMethod,
        _ endpoint: some Endpoint,
        body: RequestBody?,
        configuration: NetworkClient.Configuration
    ) throws -> URLRequest {
        let prepared = try self.prepared(method, endpoint, body: body, configuration: configuration)
        guard prepared.streamedBody == nil else {
            throw KringleError.invalidRequest("A multipart body needs a streaming request.")
        }
        return prepared.request
    }

    /// A request, and the body to stream with it when there is one.
    static func prepared(
        _ method: HTTPMethod,
        _ endpoint: some Endpoint,
        body: RequestBody?,
        configuration: NetworkClient.Configuration
    ) throws -> (request: URLRequest, streamedBody: StreamedBody?) {
        let url = try URLAssembly.url(
            base: endpoint.baseURL,
            path: endpoint.path,
            queryItems: configuration.defaultQueryItems + endpoint.queryItems
        )
        var request = URLRequest(url: url)
        request.httpMethod = method.rawValue
        request.timeoutInterval = configuration.timeout
        for (name, value) in configuration.defaultHeaders {
            request.setValue(value, forHTTPHeaderField: name)
        }
        var streamed: StreamedBody?
        if let body {
            let encoded = try body.encoded(with: configuration.encoder)
            switch encoded.body {
            case .data(let data): request.httpBody = data
            case .streamed(let body):
                streamed = body
                request.setValue(String(body.length), forHTTPHeaderField: "Content-Length")
            }
            request.setValue(encoded.contentType, forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in endpoint.headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return (request, streamed)
    }
}
