import Foundation

extension NetworkClient {
    /// Sends `method` to `endpoint` and decodes the body as `type`, keeping the status,
    /// headers, raw body and final URL.
    ///
    /// ```swift
    /// client.request(.post, CatEndpoint.feed(catName: "Tom"), body: .json(meal), as: Receipt.self)
    ///     .done { response in print(response.statusCode, response.headers["ETag"] ?? "-") }
    /// ```
    /// Asking for `Data.self` gives the raw body without decoding.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - endpoint: Where to send it.
    ///   - body: What to send, if anything; JSON is encoded off the caller's thread.
    ///   - cachePolicy: How this call uses the client's ``HTTPCache``; the endpoint's
    ///     ``Endpoint/cachePolicy`` when `nil`.
    ///   - type: What to decode the body into (off the caller's thread).
    ///   - timeout: Seconds the whole call may take, redirects, retries and the waits
    ///     between them included; the endpoint's ``Endpoint/timeout``, else the client's
    ///     ``Configuration-swift.struct/timeout``, when `nil`.
    /// - Returns: A promise of the decoded response. It rejects with a ``KringleError`` (or
    ///   ``/KringlePromise/PromiseError/cancelled`` when cancelled).
    @inlinable @inline(__always)
    public func request<Value: Decodable & Sendable>(
        _ method: HTTPMethod,
        _ endpoint: some Endpoint,
        body: RequestBody? = nil,
        cachePolicy: CachePolicy? = nil,
        as type: Value.Type,
        timeout: TimeInterval? = nil
    ) -> Promise<Response<Value>> {
        runPipeline(method, endpoint, body: body, cachePolicy: cachePolicy, timeout: timeout) { [self] response in
            try ResponseDecoding.decode(response, as: Value.self, configuration: configuration)
        }
    }
}
