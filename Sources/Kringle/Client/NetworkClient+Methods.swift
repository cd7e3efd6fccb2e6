import Foundation

extension NetworkClient {
    /// Gets `endpoint` and decodes the body as `type`.
    ///
    /// ```swift
    /// client.get(CatEndpoint.cuddle, as: Cat.self).then { cat in print(cat.name) }
    /// ```
    public func get<Value: Decodable & Sendable>(_ endpoint: some Endpoint, as type: Value.Type) -> Promise<Value> {
        request(.get, endpoint, as: type).then { $0.value }
    }

    /// Gets `endpoint`, ignoring the body.
    @discardableResult
    public func get(_ endpoint: some Endpoint) -> Promise<Void> {
        request(.get, endpoint, as: Data.self).then { _ in () }
    }

    /// Posts `body` (JSON for any `Encodable`, `Data` as it is) and decodes the response.
    public func post<Value: Decodable & Sendable>(
        _ body: some Encodable & Sendable, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        request(.post, endpoint, body: RequestBody(body), as: type).then { $0.value }
    }

    /// Posts `body` (JSON for any `Encodable`, `Data` as it is), ignoring the response body.
    @discardableResult
    public func post(_ body: some Encodable & Sendable, to endpoint: some Endpoint) -> Promise<Void> {
        request(.post, endpoint, body: RequestBody(body), as: Data.self).then { _ in () }
    }

    /// Posts a form or raw body and decodes the response.
    public func post<Value: Decodable & Sendable>(
        _ body: RequestBody, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        request(.post, endpoint, body: body, as: type).then { $0.value }
    }

    /// Posts a form or raw body, ignoring the response body.
    @discardableResult
    public func post(_ body: RequestBody, to endpoint: some Endpoint) -> Promise<Void> {
        request(.post, endpoint, body: body, as: Data.self).then { _ in () }
    }

    /// Puts `body` (JSON for any `Encodable`, `Data` as it is) and decodes the response.
    public func put<Value: Decodable & Sendable>(
        _ body: some Encodable & Sendable, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        request(.put, endpoint, body: RequestBody(body), as: type).then { $0.value }
    }

    /// Puts `body` (JSON for any `Encodable`, `Data` as it is), ignoring the response body.
    @discardableResult
    public func put(_ body: some Encodable & Sendable, to endpoint: some Endpoint) -> Promise<Void> {
        request(.put, endpoint, body: RequestBody(body), as: Data.self).then { _ in () }
    }

    /// Puts a form or raw body and decodes the response.
    public func put<Value: Decodable & Sendable>(
        _ body: RequestBody, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        request(.put, endpoint, body: body, as: type).then { $0.value }
    }

    /// Puts a form or raw body, ignoring the response body.
    @discardableResult
    public func put(_ body: RequestBody, to endpoint: some Endpoint) -> Promise<Void> {
        request(.put, endpoint, body: body, as: Data.self).then { _ in () }
    }

    /// Patches with `body` (JSON for any `Encodable`, `Data` as it is) and decodes the response.
    public func patch<Value: Decodable & Sendable>(
        _ body: some Encodable & Sendable, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        request(.patch, endpoint, body: RequestBody(body), as: type).then { $0.value }
    }

    /// Patches with `body` (JSON for any `Encodable`, `Data` as it is), ignoring the response body.
    @discardableResult
    public func patch(_ body: some Encodable & Sendable, to endpoint: some Endpoint) -> Promise<Void> {
        request(.patch, endpoint, body: RequestBody(body), as: Data.self).then { _ in () }
    }

    /// Patches with a form or raw body and decodes the response.
    public func patch<Value: Decodable & Sendable>(
        _ body: RequestBody, to endpoint: some Endpoint, as type: Value.Type
    ) -> Promise<Value> {
        request(.patch, endpoint, body: body, as: type).then { $0.value }
    }

    /// Patches with a form or raw body, ignoring the response body.
    @discardableResult
    public func patch(_ body: RequestBody, to endpoint: some Endpoint) -> Promise<Void> {
        request(.patch, endpoint, body: body, as: Data.self).then { _ in () }
    }

    /// Deletes `endpoint` and decodes the response.
    public func delete<Value: Decodable & Sendable>(_ endpoint: some Endpoint, as type: Value.Type) -> Promise<Value> {
        request(.delete, endpoint, as: type).then { $0.value }
    }

    /// Deletes `endpoint`, ignoring the response body.
    @discardableResult
    public func delete(_ endpoint: some Endpoint) -> Promise<Void> {
        request(.delete, endpoint, as: Data.self).then { _ in () }
    }
}

extension RequestBody {
    /// `Data` as it is (`application/octet-stream`), a ``RequestBody`` as itself, anything
    /// else as JSON.
    init(_ value: some Encodable & Sendable) {
        if let data = value as? Data {
            self = .data(data, contentType: "application/octet-stream")
        } else {
            self = .json(value)
        }
    }
}
