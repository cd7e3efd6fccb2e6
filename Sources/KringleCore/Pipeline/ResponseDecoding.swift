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
    /// Runs on the coding queue, or on the consumer waiting for the value; never on a thread
    /// while it drives a transport, which a long decode would stall (checked in debug builds).
    /// The curl transport's thread may decode a light response while it is lent to the
    /// promises' queue, when it does not drive: a decode that takes long there costs it the
    /// seat (`DrivingSeat`).
    ///
    /// Not inlinable: compiled for the caller's `Value` it saved about 200 instructions of
    /// some 245,000 per request (`Scripts/speed-guard.sh`), within the noise; the generic
    /// version casts the body at run time. (`Data?` takes the bytes as they are too.)
    @usableFromInline
    static func value<Value: Decodable & Sendable>(
        of response: HTTPResponse,
        as type: Value.Type,
        configuration: NetworkClient.Configuration
    ) throws -> Value {
        ThreadConfinement.assertOffDrivingThreads()
        if let raw = response.body as? Value { return raw }
        do {
            guard !response.body.isEmpty else { throw emptyBody(Value.self) }
            return try configuration.decoder.decode(Value.self, from: response.body)
        } catch let error as DecodingError {
            throw decodingFailed(error, response, configuration: configuration)
        }
    }

    /// Why no `type` could be decoded from an empty body.
    static func emptyBody(_ type: Any.Type) -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: [], debugDescription: "The response body was empty, so no \(type) could be decoded."))
    }

    /// `error` with the response it came from, described as `configuration` redacts it.
    static func decodingFailed(
        _ error: DecodingError, _ response: HTTPResponse, configuration: NetworkClient.Configuration
    ) -> KringleError {
        KringleError.decodingFailed(error, Response(response, redaction: configuration.redaction))
    }

    /// The body decoded as ``value(of:as:configuration:)`` does, with the response's status,
    /// fields and metrics.
    @usableFromInline
    static func decode<Value: Decodable & Sendable>(
        _ response: HTTPResponse,
        as type: Value.Type,
        configuration: NetworkClient.Configuration
    ) throws -> Response<Value> {
        Response(
            value: try value(of: response, as: type, configuration: configuration), body: response.body, of: response)
    }
}
