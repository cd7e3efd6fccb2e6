import Foundation

/// Decodes a response's body.
enum ResponseDecoding {
    /// `response` has passed status validation already.
    static func decode<Value: Decodable & Sendable>(
        _ response: HTTPResponse,
        as type: Value.Type,
        configuration: NetworkClient.Configuration
    ) throws -> Response<Value> {
        if let raw = response.body as? Value {
            return Response(value: raw, body: response.body, of: response)
        }
        do {
            guard !response.body.isEmpty else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: [],
                        debugDescription: "The response body was empty, so no \(Value.self) could be decoded."
                    ))
            }
            let value = try configuration.decoder.decode(Value.self, from: response.body)
            return Response(value: value, body: response.body, of: response)
        } catch let error as DecodingError {
            throw KringleError.decodingFailed(error, Response(response, redaction: configuration.redaction))
        }
    }
}
