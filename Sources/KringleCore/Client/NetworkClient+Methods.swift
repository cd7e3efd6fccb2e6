import Foundation

extension NetworkClient {
    // Each verb comes in the same overloads: without a body (get, delete) or with one (post,
    // put, patch), the response decoded as the caller's type or ignored. The overloads with a
    // ``RequestBody`` call the two functions at the end, `decoded` and `bodyIgnored`; those
    // with an `Encodable` body make it a ``RequestBody`` and call them. The file is grouped by
    // overload, not by verb: within a group only the verb changes. Each takes the call's own
    // `timeout`: seconds for the whole call, redirects, retries and the waits between them
    // included, over the endpoint's ``Endpoint/timeout`` and the client's.

    // MARK: - Without a body

    /// Gets `endpoint` and decodes the body as `type`.
    ///
    /// ```swift
    /// client.get(CatEndpoint.cuddle, as: Cat.self).done { cat in print(cat.name) }
    /// client.get(CatEndpoint.cuddle, as: Cat.self, timeout: 2)  // two seconds, retries included
    /// ```
    @inlinable @inline(__always)
    public func get<Value: Decodable & Sendable>(
        _ endpoint: some Endpoint, as type: Value.Type, timeout: TimeInterval? = nil
    ) -> Promise<Value> {
        decoded(.get, endpoint, body: nil, as: type, timeout: timeout)
    }

    /// Deletes `endpoint` and decodes the response.
    @inlinable @inline(__always)
    public func delete<Value: Decodable & Sendable>(
        _ endpoint: some Endpoint, as type: Value.Type, timeout: TimeInterval? = nil
    ) -> Promise<Value> {
        decoded(.delete, endpoint, body: nil, as: type, timeout: timeout)
    }

    /// Gets `endpoint`, ignoring the body.
    @discardableResult
    public func get(_ endpoint: some Endpoint, timeout: TimeInterval? = nil) -> Promise<Void> {
        bodyIgnored(.get, endpoint, body: nil, timeout: timeout)
    }

    /// Deletes `endpoint`, ignoring the response body.
    @discardableResult
    public func delete(_ endpoint: some Endpoint, timeout: TimeInterval? = nil) -> Promise<Void> {
        bodyIgnored(.delete, endpoint, body: nil, timeout: timeout)
    }

    // MARK: - With a RequestBody (a form, raw bytes), the response decoded

    /// Posts a form or raw body and decodes the response.
    @inlinable @inline(__always)
    public func post<Value: Decodable & Sendable>(
        _ body: RequestBody, to endpoint: some Endpoint, as type: Value.Type, timeout: TimeInterval? = nil
    ) -> Promise<Value> {
        decoded(.post, endpoint, body: body, as: type, timeout: timeout)
    }

    /// Puts a form or raw body and decodes the response.
    @inlinable @inline(__always)
    public func put<Value: Decodable & Sendable>(
        _ body: RequestBody, to endpoint: some Endpoint, as type: Value.Type, timeout: TimeInterval? = nil
    ) -> Promise<Value> {
        decoded(.put, endpoint, body: body, as: type, timeout: timeout)
    }

    /// Patches with a form or raw body and decodes the response.
    @inlinable @inline(__always)
    public func patch<Value: Decodable & Sendable>(
        _ body: RequestBody, to endpoint: some Endpoint, as type: Value.Type, timeout: TimeInterval? = nil
    ) -> Promise<Value> {
        decoded(.patch, endpoint, body: body, as: type, timeout: timeout)
    }

    // MARK: - With a RequestBody, the response body ignored

    /// Posts a form or raw body, ignoring the response body.
    @discardableResult
    public func post(_ body: RequestBody, to endpoint: some Endpoint, timeout: TimeInterval? = nil)
        -> Promise<Void>
    {
        bodyIgnored(.post, endpoint, body: body, timeout: timeout)
    }

    /// Puts a form or raw body, ignoring the response body.
    @discardableResult
    public func put(_ body: RequestBody, to endpoint: some Endpoint, timeout: TimeInterval? = nil)
        -> Promise<Void>
    {
        bodyIgnored(.put, endpoint, body: body, timeout: timeout)
    }

    /// Patches with a form or raw body, ignoring the response body.
    @discardableResult
    public func patch(_ body: RequestBody, to endpoint: some Endpoint, timeout: TimeInterval? = nil)
        -> Promise<Void>
    {
        bodyIgnored(.patch, endpoint, body: body, timeout: timeout)
    }

    // MARK: - With an Encodable body (JSON, or Data as it is), the response decoded

    /// Posts `body` (JSON for any `Encodable`, `Data` as it is) and decodes the response.
    @inlinable @inline(__always)
    public func post<Value: Decodable & Sendable>(
        _ body: some Encodable & Sendable, to endpoint: some Endpoint, as type: Value.Type, timeout: TimeInterval? = nil
    ) -> Promise<Value> {
        post(RequestBody(body), to: endpoint, as: type, timeout: timeout)
    }

    /// Puts `body` (JSON for any `Encodable`, `Data` as it is) and decodes the response.
    @inlinable @inline(__always)
    public func put<Value: Decodable & Sendable>(
        _ body: some Encodable & Sendable, to endpoint: some Endpoint, as type: Value.Type, timeout: TimeInterval? = nil
    ) -> Promise<Value> {
        put(RequestBody(body), to: endpoint, as: type, timeout: timeout)
    }

    /// Patches with `body` (JSON for any `Encodable`, `Data` as it is) and decodes the response.
    @inlinable @inline(__always)
    public func patch<Value: Decodable & Sendable>(
        _ body: some Encodable & Sendable, to endpoint: some Endpoint, as type: Value.Type, timeout: TimeInterval? = nil
    ) -> Promise<Value> {
        patch(RequestBody(body), to: endpoint, as: type, timeout: timeout)
    }

    // MARK: - With an Encodable body, the response body ignored

    /// Posts `body` (JSON for any `Encodable`, `Data` as it is), ignoring the response body.
    @discardableResult
    public func post(_ body: some Encodable & Sendable, to endpoint: some Endpoint, timeout: TimeInterval? = nil)
        -> Promise<Void>
    {
        post(RequestBody(body), to: endpoint, timeout: timeout)
    }

    /// Puts `body` (JSON for any `Encodable`, `Data` as it is), ignoring the response body.
    @discardableResult
    public func put(_ body: some Encodable & Sendable, to endpoint: some Endpoint, timeout: TimeInterval? = nil)
        -> Promise<Void>
    {
        put(RequestBody(body), to: endpoint, timeout: timeout)
    }

    /// Patches with `body` (JSON for any `Encodable`, `Data` as it is), ignoring the response body.
    @discardableResult
    public func patch(_ body: some Encodable & Sendable, to endpoint: some Endpoint, timeout: TimeInterval? = nil)
        -> Promise<Void>
    {
        patch(RequestBody(body), to: endpoint, timeout: timeout)
    }

    // MARK: - The two functions every verb comes down to

    /// The pipeline for `method`, the response body decoded as `type`. Inlinable, with
    /// the calls above, for the reason given at ``runPipeline(_:_:body:cachePolicy:timeout:output:)``.
    /// The decoding closure captures only the client (`Value.self` is known where it is
    /// compiled), so that making it allocates nothing.
    @inlinable @inline(__always)
    func decoded<Value: Decodable & Sendable>(
        _ method: HTTPMethod, _ endpoint: some Endpoint, body: RequestBody?, as type: Value.Type,
        timeout: TimeInterval? = nil
    ) -> Promise<Value> {
        runPipeline(method, endpoint, body: body) { [self] response in
            try ResponseDecoding.value(of: response, as: Value.self, configuration: configuration)
        }
    }

    /// The pipeline for `method`, the response body checked but not kept.
    private func bodyIgnored(
        _ method: HTTPMethod, _ endpoint: some Endpoint, body: RequestBody?, timeout: TimeInterval?
    ) -> Promise<Void> {
        runPipeline(method, endpoint, body: body, timeout: timeout) { [self] response in
            _ = try ResponseDecoding.value(of: response, as: Data.self, configuration: configuration)
        }
    }
}

extension RequestBody {
    /// The body for an `Encodable` value: `Data` as it is (`application/octet-stream`),
    /// anything else as JSON. A `RequestBody` never comes here (it is not `Encodable`): the
    /// `post`, `put` and `patch` overloads that take one send it as it is.
    @usableFromInline
    init(_ value: some Encodable & Sendable) {
        if let data = value as? Data {
            self = .data(data, contentType: "application/octet-stream")
        } else {
            self = .json(value)
        }
    }
}
