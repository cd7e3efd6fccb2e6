import Foundation

extension NetworkClient {
    // Each verb comes in the same overloads: without a body (get, delete) or with one (post,
    // put, patch), the response decoded as the caller's type or ignored. The overloads with a
    // ``RequestBody`` call the two functions at the end, `decoded` and `bodyIgnored`; those
    // with an `Encodable` body make it a ``RequestBody`` and call them. The file is grouped by
    // overload, not by verb: within a group only the verb changes.

    // MARK: - Without a body

    /// Gets `endpoint` and decodes the body as `type`.
    ///
    /// ```swift
    /// client.get(CatEndpoint.cuddle, as: Cat.self).done { cat in print(cat.name) }
    /// ```
    @inlinable @inline(__always)
    public func get<Value: Decodable & Sendable>(_ endpoint: some Endpoint, as type: Value.Type) -> Promise<Value> {
        decoded(.get, endpoint, body: nil, as: type)
    }

    /// Deletes `endpoint` and decodes the response.
    @inlinable @inline(__always)
    public func delete<Value: Decodable & Sendable>(_ endpoint: some Endpoint, as type: Value.Type) -> Promise<Value> {
        decoded(.delete, endpoint, body: nil, as: type)
    }

    /// Gets `endpoint`, ignoring the body.
    @discardableResult
    public func get(_ endpoint: some Endpoint) -> Promise<Void> {
        bodyIgnored(.get, endpoint, body: nil)
    }

    /// Deletes `endpoint`, ignoring the response body.
    @discardableResult
    public func delete(_ endpoint: some Endpoint) -> Promise<Void> {
        bodyIgnored(.delete, endpoint, body: nil)
    }

    // MARK: - With a RequestBody (a form, raw bytes), the response decoded

    /// Posts a form or raw body and decodes the response.
    @inlinable @inline(__always)
    public func post<Value: Decodable & Sendable>(
        _ body: RequestBody, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        decoded(.post, endpoint, body: body, as: type)
    }

    /// Puts a form or raw body and decodes the response.
    @inlinable @inline(__always)
    public func put<Value: Decodable & Sendable>(
        _ body: RequestBody, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        decoded(.put, endpoint, body: body, as: type)
    }

    /// Patches with a form or raw body and decodes the response.
    @inlinable @inline(__always)
    public func patch<Value: Decodable & Sendable>(
        _ body: RequestBody, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        decoded(.patch, endpoint, body: body, as: type)
    }

    // MARK: - With a RequestBody, the response body ignored

    /// Posts a form or raw body, ignoring the response body.
    @discardableResult
    public func post(_ body: RequestBody, to endpoint: some Endpoint) -> Promise<Void> {
        bodyIgnored(.post, endpoint, body: body)
    }

    /// Puts a form or raw body, ignoring the response body.
    @discardableResult
    public func put(_ body: RequestBody, to endpoint: some Endpoint) -> Promise<Void> {
        bodyIgnored(.put, endpoint, body: body)
    }

    /// Patches with a form or raw body, ignoring the response body.
    @discardableResult
    public func patch(_ body: RequestBody, to endpoint: some Endpoint) -> Promise<Void> {
        bodyIgnored(.patch, endpoint, body: body)
    }

    // MARK: - With an Encodable body (JSON, or Data as it is), the response decoded

    /// Posts `body` (JSON for any `Encodable`, `Data` as it is) and decodes the response.
    @inlinable @inline(__always)
    public func post<Value: Decodable & Sendable>(
        _ body: some Encodable & Sendable, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        post(RequestBody(body), to: endpoint, as: type)
    }

    /// Puts `body` (JSON for any `Encodable`, `Data` as it is) and decodes the response.
    @inlinable @inline(__always)
    public func put<Value: Decodable & Sendable>(
        _ body: some Encodable & Sendable, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        put(RequestBody(body), to: endpoint, as: type)
    }

    /// Patches with `body` (JSON for any `Encodable`, `Data` as it is) and decodes the response.
    @inlinable @inline(__always)
    public func patch<Value: Decodable & Sendable>(
        _ body: some Encodable & Sendable, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        patch(RequestBody(body), to: endpoint, as: type)
    }

    // MARK: - With an Encodable body, the response body ignored

    /// Posts `body` (JSON for any `Encodable`, `Data` as it is), ignoring the response body.
    @discardableResult
    public func post(_ body: some Encodable & Sendable, to endpoint: some Endpoint) -> Promise<Void> {
        post(RequestBody(body), to: endpoint)
    }

    /// Puts `body` (JSON for any `Encodable`, `Data` as it is), ignoring the response body.
    @discardableResult
    public func put(_ body: some Encodable & Sendable, to endpoint: some Endpoint) -> Promise<Void> {
        put(RequestBody(body), to: endpoint)
    }

    /// Patches with `body` (JSON for any `Encodable`, `Data` as it is), ignoring the response body.
    @discardableResult
    public func patch(_ body: some Encodable & Sendable, to endpoint: some Endpoint) -> Promise<Void> {
        patch(RequestBody(body), to: endpoint)
    }

    // MARK: - The two functions every verb comes down to

    /// The pipeline for `method`, the response body decoded as `type`. Inlinable, with
    /// the calls above, for the reason given at ``runPipeline(_:_:body:cachePolicy:output:)``.
    /// The decoding closure captures only the client (`Value.self` is known where it is
    /// compiled), so that making it allocates nothing.
    @inlinable @inline(__always)
    func decoded<Value: Decodable & Sendable>(
        _ method: HTTPMethod, _ endpoint: some Endpoint, body: RequestBody?, as type: Value.Type
    ) -> Promise<Value> {
        runPipeline(method, endpoint, body: body) { [self] response in
            try ResponseDecoding.value(of: response, as: Value.self, configuration: configuration)
        }
    }

    /// The pipeline for `method`, the response body checked but not kept.
    private func bodyIgnored(_ method: HTTPMethod, _ endpoint: some Endpoint, body: RequestBody?) -> Promise<Void> {
        runPipeline(method, endpoint, body: body) { [self] response in
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
