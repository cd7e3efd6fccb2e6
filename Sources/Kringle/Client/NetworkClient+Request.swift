import Foundation

extension NetworkClient {
    /// Sends `method` to `endpoint` and decodes the body as `type`, keeping the status,
    /// headers, raw body and final URL.
    ///
    /// ```swift
    /// client.request(.post, CatEndpoint.feed(catName: "Tom"), body: .json(meal), as: Receipt.self)
    ///     .then { response in print(response.statusCode, response.headers["ETag"] ?? "-") }
    /// ```
    /// Asking for `Data.self` gives the raw body without decoding.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - endpoint: Where to send it.
    ///   - body: What to send, if anything; encoded off the caller's thread.
    ///   - type: What to decode the body into (off the caller's thread).
    /// - Returns: A promise of the decoded response. It rejects with a ``KringleError`` (or
    ///   ``PromiseError/cancelled`` when cancelled).
    public func request<Value: Decodable & Sendable>(
        _ method: HTTPMethod,
        _ endpoint: some Endpoint,
        body: RequestBody? = nil,
        as type: Value.Type
    ) -> Promise<Response<Value>> {
        let configuration = configuration
        return Promise(())
            .then(on: Self.codingQueue) { _ in
                try RequestBuilding.request(method, endpoint, body: body, configuration: configuration)
            }
            .then { request in self.send(request) }
            .then(on: Self.codingQueue) { response in
                try ResponseDecoding.decode(response, as: type, configuration: configuration)
            }
    }

    /// Where request bodies are encoded and responses decoded: never the caller's thread nor
    /// the transport's, so a 50 MB body stalls neither.
    static let codingQueue = DispatchQueue(label: "kringle.coding", attributes: .concurrent)
}
