import Foundation
@_spi(KringleInternals) import KringlePromise
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
    ///   - type: What to decode the body into (off the caller's thread).
    /// - Returns: A promise of the decoded response. It rejects with a ``KringleError`` (or
    ///   ``/KringlePromise/PromiseError/cancelled`` when cancelled).
    public func request<Value: Decodable & Sendable>(
        _ method: HTTPMethod,
        _ endpoint: some Endpoint,
        body: RequestBody? = nil,
        as type: Value.Type
    ) -> Promise<Response<Value>> {
        perform(method, endpoint, body: body) { response, configuration in
            try ResponseDecoding.decode(response, as: type, configuration: configuration)
        }
    }

    /// The one path every call takes: build the request, send it hop by hop, then turn the
    /// final response into the caller's value on the coding queue.
    func perform<Output: Sendable>(
        _ method: HTTPMethod,
        _ endpoint: some Endpoint,
        body: RequestBody?,
        output: @escaping @Sendable (HTTPResponse, Configuration) throws -> Output
    ) -> Promise<Output> {
        let configuration = configuration
        let prepared: Promise<(request: URLRequest, streamedBody: StreamedBody?)>
        if case .json? = body {
            prepared = Promise(()).map(on: Self.codingQueue) { _ in
                try RequestBuilding.prepared(method, endpoint, body: body, configuration: configuration)
            }
        } else {
            // Nothing to encode: building the URL and headers costs less than a queue hop.
            do {
                prepared = Promise(try RequestBuilding.prepared(method, endpoint, body: body, configuration: configuration))
            } catch {
                prepared = Promise(error: error)
            }
        }
        return prepared.flatMapResultInline { built in
            let (request, streamedBody) = try built.get()
            return self.call(request, options: TransferOptions(body: streamedBody), output: output)
        }
    }

    /// Sends a built request (attempts, retries, redirects, cookies), turns the response into
    /// the caller's value on the coding queue, and logs a failure, cancellation included.
    func call<Output: Sendable>(
        _ request: URLRequest,
        options: TransferOptions = .none,
        output: @escaping @Sendable (HTTPResponse, Configuration) throws -> Output
    ) -> Promise<Output> {
        let configuration = configuration
        let outcome = attempt(request, options: options, number: 1)
            .flatMapResultInline { result in
                // Only a body needs the coding queue; a failure passes on at once, so a
                // time-out or a cancellation is never held up behind busy decoders.
                let response = try result.get()
                return Promise(()).map(on: Self.codingQueue) { _ in try output(response, configuration) }
            }
            .mapResultInline { result in
                if case .failure(let error) = result { self.logFailure(request, error) }
                return try result.get()
            }
        outcome.onCancel { self.logFailure(request, PromiseError.cancelled) }
        return outcome
    }

    /// Where request bodies are encoded and responses decoded: never the caller's thread nor
    /// the transport's, so a 50 MB body stalls neither.
    static let codingQueue = DispatchQueue(label: "kringle.coding", attributes: .concurrent)
}
