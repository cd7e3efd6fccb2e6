import Foundation

extension NetworkClient {
    /// Gets `endpoint` and decodes the body as `type`.
    ///
    /// ```swift
    /// client.get(CatEndpoint.cuddle, as: Cat.self).done { cat in print(cat.name) }
    /// ```
    public func get<Value: Decodable & Sendable>(_ endpoint: some Endpoint, as type: Value.Type) -> Promise<Value> {
        runPipeline(.get, endpoint, body: nil) { try ResponseDecoding.decode($0, as: type, configuration: $1).value }
    }

    /// Gets `endpoint`, ignoring the body.
    @discardableResult
    public func get(_ endpoint: some Endpoint) -> Promise<Void> {
        runPipeline(.get, endpoint, body: nil) { _ = try ResponseDecoding.decode($0, as: Data.self, configuration: $1) }
    }

    /// Posts `body` (JSON for any `Encodable`, `Data` as it is) and decodes the response.
    public func post<Value: Decodable & Sendable>(
        _ body: some Encodable & Sendable, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        runPipeline(.post, endpoint, body: RequestBody(body)) {
            try ResponseDecoding.decode($0, as: type, configuration: $1).value
        }
    }

    /// Posts `body` (JSON for any `Encodable`, `Data` as it is), ignoring the response body.
    @discardableResult
    public func post(_ body: some Encodable & Sendable, to endpoint: some Endpoint) -> Promise<Void> {
        runPipeline(.post, endpoint, body: RequestBody(body)) {
            _ = try ResponseDecoding.decode($0, as: Data.self, configuration: $1)
        }
    }

    /// Posts a form or raw body and decodes the response.
    public func post<Value: Decodable & Sendable>(
        _ body: RequestBody, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        runPipeline(.post, endpoint, body: body) { try ResponseDecoding.decode($0, as: type, configuration: $1).value }
    }

    /// Posts a form or raw body, ignoring the response body.
    @discardableResult
    public func post(_ body: RequestBody, to endpoint: some Endpoint) -> Promise<Void> {
        runPipeline(.post, endpoint, body: body) {
            _ = try ResponseDecoding.decode($0, as: Data.self, configuration: $1)
        }
    }

    /// Puts `body` (JSON for any `Encodable`, `Data` as it is) and decodes the response.
    public func put<Value: Decodable & Sendable>(
        _ body: some Encodable & Sendable, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        runPipeline(.put, endpoint, body: RequestBody(body)) {
            try ResponseDecoding.decode($0, as: type, configuration: $1).value
        }
    }

    /// Puts `body` (JSON for any `Encodable`, `Data` as it is), ignoring the response body.
    @discardableResult
    public func put(_ body: some Encodable & Sendable, to endpoint: some Endpoint) -> Promise<Void> {
        runPipeline(.put, endpoint, body: RequestBody(body)) {
            _ = try ResponseDecoding.decode($0, as: Data.self, configuration: $1)
        }
    }

    /// Puts a form or raw body and decodes the response.
    public func put<Value: Decodable & Sendable>(
        _ body: RequestBody, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        runPipeline(.put, endpoint, body: body) { try ResponseDecoding.decode($0, as: type, configuration: $1).value }
    }

    /// Puts a form or raw body, ignoring the response body.
    @discardableResult
    public func put(_ body: RequestBody, to endpoint: some Endpoint) -> Promise<Void> {
        runPipeline(.put, endpoint, body: body) {
            _ = try ResponseDecoding.decode($0, as: Data.self, configuration: $1)
        }
    }

    /// Patches with `body` (JSON for any `Encodable`, `Data` as it is) and decodes the response.
    public func patch<Value: Decodable & Sendable>(
        _ body: some Encodable & Sendable, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        runPipeline(.patch, endpoint, body: RequestBody(body)) {
            try ResponseDecoding.decode($0, as: type, configuration: $1).value
        }
    }

    /// Patches with `body` (JSON for any `Encodable`, `Data` as it is), ignoring the response body.
    @discardableResult
    public func patch(_ body: some Encodable & Sendable, to endpoint: some Endpoint) -> Promise<Void> {
        runPipeline(.patch, endpoint, body: RequestBody(body)) {
            _ = try ResponseDecoding.decode($0, as: Data.self, configuration: $1)
        }
    }

    /// Patches with a form or raw body and decodes the response.
    public func patch<Value: Decodable & Sendable>(
        _ body: RequestBody, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        runPipeline(.patch, endpoint, body: body) { try ResponseDecoding.decode($0, as: type, configuration: $1).value }
    }

    /// Patches with a form or raw body, ignoring the response body.
    @discardableResult
    public func patch(_ body: RequestBody, to endpoint: some Endpoint) -> Promise<Void> {
        runPipeline(.patch, endpoint, body: body) {
            _ = try ResponseDecoding.decode($0, as: Data.self, configuration: $1)
        }
    }

    /// Deletes `endpoint` and decodes the response.
    public func delete<Value: Decodable & Sendable>(_ endpoint: some Endpoint, as type: Value.Type) -> Promise<Value> {
        runPipeline(.delete, endpoint, body: nil) { try ResponseDecoding.decode($0, as: type, configuration: $1).value }
    }

    /// Deletes `endpoint`, ignoring the response body.
    @discardableResult
    public func delete(_ endpoint: some Endpoint) -> Promise<Void> {
        runPipeline(.delete, endpoint, body: nil) {
            _ = try ResponseDecoding.decode($0, as: Data.self, configuration: $1)
        }
    }
}

extension RequestBody {
    /// The body for an `Encodable` value: `Data` as it is (`application/octet-stream`),
    /// anything else as JSON. A `RequestBody` never comes here (it is not `Encodable`): the
    /// `post`, `put` and `patch` overloads that take one send it as it is.
    init(_ value: some Encodable & Sendable) {
        if let data = value as? Data {
            self = .data(data, contentType: "application/octet-stream")
        } else {
            self = .json(value)
        }
    }
}
