import Foundation

extension NetworkClient {
    /// Sends `request` and calls `completion` exactly once, for callers that do not use
    /// promises.
    ///
    /// The request goes through the interceptors, retries, redirects and cookies like any
    /// other. `completion` receives the response (acceptable status), the failure the
    /// interceptors did not retry (including a retryable one past the retry limit), or
    /// ``NetworkResult/cancelled`` when the returned ``Disposable`` is disposed first. It runs
    /// on a queue of the library's, never on the caller's stack (only the builder variant
    /// reports a request that cannot be built at once, before returning).
    ///
    /// ```swift
    /// let request = HTTPRequest(url: URL(string: "https://cats.example/cuddle")!)
    /// let handle = client.sendRequest(request) { result in
    ///     if case .success(let response) = result { print(response.statusCode) }
    /// }
    /// handle.dispose()   // cancels the request and any retry still to come
    /// ```
    @discardableResult
    public func sendRequest(_ request: HTTPRequest, completion: @escaping @Sendable (NetworkResult) -> Void)
        -> Disposable
    {
        let checked: ValidatedRequest
        do {
            checked = try ValidatedRequest(request)
        } catch {
            return deliver(Promise(error: error), to: completion)
        }
        return deliver(runPipeline(for: checked) { response in Response(response) }, to: completion)
    }

    /// Builds a request from `builder` (with the client's default headers and query items)
    /// and sends it like ``sendRequest(_:completion:)-(HTTPRequest,_)``; a multipart body is
    /// streamed, as for ``request(_:_:body:cachePolicy:as:timeout:)``.
    ///
    /// When the request cannot be built, `completion` is called at once with the error
    /// (``KringleError/invalidRequest(_:)`` for a URL that does not form,
    /// ``KringleError/encodingFailed(_:)`` for a body that does not encode,
    /// ``KringleError/file(_:underlying:)`` for a multipart file that cannot be read), and
    /// the returned ``Disposable`` is already disposed.
    @discardableResult
    public func sendRequest(_ builder: RequestBuilder, completion: @escaping @Sendable (NetworkResult) -> Void)
        -> Disposable
    {
        let built: RequestAssembly.Built
        do {
            built = try RequestAssembly.build(builder.method, builder, body: builder.body, for: self)
        } catch {
            completion(.failure(error))
            return .disposed()
        }
        let options = built.options
        return deliver(
            runPipeline(for: built.request, options: options) { response in Response(response) }, to: completion)
    }

    /// Calls `completion` exactly once with the outcome of `sending`; disposing cancels it.
    private func deliver(
        _ sending: Promise<Response<Data>>,
        to completion: @escaping @Sendable (NetworkResult) -> Void
    ) -> Disposable {
        sending.done { response in completion(.success(response)) }
            .catch { error in completion(error.isCancellation ? .cancelled : .failure(error)) }
        return Disposable { sending.cancel() }
    }
}
