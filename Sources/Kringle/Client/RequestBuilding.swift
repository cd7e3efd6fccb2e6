import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns an endpoint, a method and a body into a `URLRequest`.
enum RequestBuilding {
    static func request(
        _ method: HTTPMethod,
        _ endpoint: some Endpoint,
        body: RequestBody?,
        configuration: NetworkClient.Configuration
    ) throws -> URLRequest {
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
        if let body {
            let encoded = try body.encoded(with: configuration.encoder)
            request.httpBody = encoded.body
            request.setValue(encoded.contentType, forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in endpoint.headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }
}
