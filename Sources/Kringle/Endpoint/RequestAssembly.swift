import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns an endpoint, a method and a body into a `URLRequest`: the pipeline's first stage.
///
/// (Not to be confused with ``RequestBuilder``, the callback API's description of a
/// request, which is one kind of endpoint this assembles.)
enum RequestAssembly {
    /// A request, and the body to stream with it when it has one (a multipart form).
    struct Built: Sendable {
        var request: URLRequest
        var streamedBody: StreamedBody?
        var credentialHeaders: Set<String>
        var cachePolicy: CachePolicy

        /// What the pipeline carries from hop to hop for this request.
        var options: TransferOptions {
            options(cachePolicy: nil)
        }

        /// What the pipeline carries from hop to hop, with the call's own cache policy, when
        /// it has one, over the endpoint's.
        func options(cachePolicy callPolicy: CachePolicy?) -> TransferOptions {
            TransferOptions(
                body: streamedBody, credentialHeaders: credentialHeaders, cachePolicy: callPolicy ?? cachePolicy)
        }
    }

    /// The request for `method` on `endpoint`: the URL with the client's and the endpoint's
    /// query items, the client's default headers, the encoded body and its `Content-Type`,
    /// the call's own `headers` (what an event stream asks for, say), then the endpoint's own
    /// headers, which win.
    static func build(
        _ method: HTTPMethod,
        _ endpoint: some Endpoint,
        body: RequestBody?,
        headers: [String: String] = [:],
        configuration: NetworkClient.Configuration
    ) throws -> Built {
        let url = try URLAssembly.url(
            base: endpoint.baseURL,
            path: endpoint.path,
            queryItems: configuration.defaultQueryItems + endpoint.queryItems
        )
        var request = URLRequest(url: url)
        // GET is URLRequest's own default; every change to a URLRequest costs.
        if method != .get { request.httpMethod = method.rawValue }
        request.timeoutInterval = configuration.transportTimeout
        // Checked before they go in: FoundationNetworking's `setValue` drops a value with a
        // line break without a word.
        for (name, value) in configuration.defaultHeaders {
            try RequestValidation.validateField(name: name, value: value)
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
            try RequestValidation.validateField(name: "Content-Type", value: encoded.contentType)
            request.setValue(encoded.contentType, forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers {
            try RequestValidation.validateField(name: name, value: value)
            request.setValue(value, forHTTPHeaderField: name)
        }
        for (name, value) in endpoint.headers {
            try RequestValidation.validateField(name: name, value: value)
            request.setValue(value, forHTTPHeaderField: name)
        }
        return Built(
            request: request, streamedBody: streamed, credentialHeaders: endpoint.credentialHeaders,
            cachePolicy: endpoint.cachePolicy)
    }
}
