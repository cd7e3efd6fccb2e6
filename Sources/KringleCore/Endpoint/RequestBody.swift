import Foundation

/// A request body that is not plain JSON.
///
/// Any `Encodable` value passed to `post`, `put` or `patch` is sent as JSON, and `Data` is
/// sent as it is; use this type for the other cases:
/// ```swift
/// client.post(RequestBody.form([("name", "Tom"), ("mood", "sleepy & fed")]), to: CatEndpoint.cuddle)
/// client.put(RequestBody.data(png, contentType: "image/png"), to: CatEndpoint.feed(catName: "Tom"))
/// ```
public enum RequestBody: Sendable {
    /// `application/x-www-form-urlencoded` fields, in order.
    case form([(name: String, value: String)])
    /// Raw bytes with their content type.
    case data(Data, contentType: String)
    /// A value encoded as JSON with the client's `JSONEncoder`.
    case json(any Encodable & Sendable)
    /// A `multipart/form-data` form; file parts are streamed from disk.
    case multipart([MultipartPart])
}

extension RequestBody {
    /// What to send: bytes in memory, or a body to stream.
    enum Encoded {
        case data(Data)
        case streamed(StreamedBody)
    }

    /// The body and content type to send.
    func encoded(with encoder: JSONEncoder) throws -> (body: Encoded, contentType: String) {
        if case .multipart(let parts) = self {
            let multipart = try MultipartEncoding.body(for: parts)
            return (.streamed(multipart.body), multipart.contentType)
        }
        let (data, contentType) = try encodedInMemory(with: encoder)
        return (.data(data), contentType)
    }

    private func encodedInMemory(with encoder: JSONEncoder) throws -> (body: Data, contentType: String) {
        switch self {
        case .form(let fields):
            let text =
                fields
                .map { PercentEncoding.formComponent($0.name) + "=" + PercentEncoding.formComponent($0.value) }
                .joined(separator: "&")
            return (Data(text.utf8), "application/x-www-form-urlencoded")
        case .data(let data, let contentType):
            return (data, contentType)
        case .json(let value):
            do {
                return (try encoder.encode(value), "application/json")
            } catch let error as EncodingError {
                throw KringleError.encodingFailed(error)
            } catch {
                // Thrown by the value's own `encode(to:)`: kept as the context's underlying error.
                let context = EncodingError.Context(
                    codingPath: [], debugDescription: "The value's encode(to:) threw.", underlyingError: error)
                throw KringleError.encodingFailed(.invalidValue(value, context))
            }
        case .multipart:
            throw KringleError.invalidRequest("A multipart body is streamed, not held in memory.")
        }
    }
}
