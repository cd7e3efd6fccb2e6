import Foundation

/// Decodes a response's body.
@usableFromInline
enum ResponseDecoding {
    /// The body as a `Value`: the bytes themselves for `Data`, else decoded with the client's
    /// decoder. `response` has passed status validation already.
    ///
    /// The value alone, for the calls that return just that (`get(_:as:)` and the like): a
    /// ``Response`` around it would be built only to be taken apart again.
    ///
    /// Inlinable, so that it is compiled for the caller's `Value`: run as generic code, it
    /// looked up the metadata of `Value?` on every request and cast the body at run time
    /// (`swift_dynamicCast`); specialised, the cast is decided when it is compiled. (`Data?`
    /// takes the bytes as they are too.)
    @inlinable
    static func value<Value: Decodable & Sendable>(
        of response: HTTPResponse,
        as type: Value.Type,
        configuration: NetworkClient.Configuration
    ) throws -> Value {
        if let raw = response.body as? Value { return raw }
        do {
            guard !response.body.isEmpty else { throw emptyBody(Value.self) }
            return try configuration.decoder.decode(Value.self, from: response.body)
        } catch let error as DecodingError {
            throw decodingFailed(error, response, configuration: configuration)
        }
    }

    /// Why no `type` could be decoded from an empty body.
    @usableFromInline
    static func emptyBody(_ type: Any.Type) -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: [], debugDescription: "The response body was empty, so no \(type) could be decoded."))
    }

    /// `error` with the response it came from, described as `configuration` redacts it.
    @usableFromInline
    static func decodingFailed(
        _ error: DecodingError, _ response: HTTPResponse, configuration: NetworkClient.Configuration
    ) -> KringleError {
        KringleError.decodingFailed(error, Response(response, redaction: configuration.redaction))
    }

    /// The body decoded as ``value(of:as:configuration:)`` does, with the response's status,
    /// fields and metrics.
    @inlinable
    static func decode<Value: Decodable & Sendable>(
        _ response: HTTPResponse,
        as type: Value.Type,
        configuration: NetworkClient.Configuration
    ) throws -> Response<Value> {
        Response(
            value: try value(of: response, as: type, configuration: configuration), body: response.body, of: response)
    }
}
