import Foundation

/// Everything that can go wrong with a Kringle request, apart from cancellation (which
/// surfaces as ``/KringlePromise/PromiseError/cancelled``).
///
/// ```swift
/// client.get(CatEndpoint.pet(catName: "Tom"), as: Cat.self).catch { error in
///     if case KringleError.unacceptableStatusCode(404, _) = error { print("no such cat") }
/// }
/// ```
public enum KringleError: Error, Sendable, CustomStringConvertible {
    /// The request could not be built: a URL that does not form, a body that does not
    /// encode. The string says what was wrong.
    case invalidRequest(String)
    /// No response arrived: connection refused or reset, DNS, TLS… The underlying error is
    /// the transport's own.
    case transport(any Error)
    /// The request's timeout passed before the response was complete.
    case timedOut
    /// The server answered with a status outside the acceptable range. The response, body
    /// included, is kept so that you can decode your API's error payload.
    case unacceptableStatusCode(Int, Response<Data>)
    /// The body did not decode into the requested type. The description names the coding
    /// path and the expected type and shows the start of the body.
    case decodingFailed(DecodingError, Response<Data>)
    /// The server redirected more times than the client allows; the URL is the last
    /// `Location` it was sent to.
    case tooManyRedirects(URL)

    /// What went wrong, for a person: the case, the URL and status where there is one, the
    /// decoding path, and the start of the body.
    public var description: String {
        switch self {
        case .invalidRequest(let reason):
            return "Invalid request: \(reason)"
        case .transport(let error):
            return "The request failed before a response arrived: \(error)"
        case .timedOut:
            return "The request timed out."
        case .unacceptableStatusCode(let status, let response):
            return "Unacceptable status code \(status) from \(response.url.absoluteString)"
                + Self.bodySnippet(response.body)
        case .decodingFailed(let error, let response):
            return "Decoding the response from \(response.url.absoluteString) failed: "
                + Self.describe(error) + Self.bodySnippet(response.body)
        case .tooManyRedirects(let url):
            return "Too many redirects; the last one pointed to \(url.absoluteString)"
        }
    }

    /// A readable account of a decoding error: what was wrong and where.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
            let joined = keys.joined()
            return joined.isEmpty ? "the top level" : String(joined.drop { $0 == "." })
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "expected \(type) at \(path(context)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "expected \(type) at \(path(context)) but found null or nothing: \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "missing key \"\(key.stringValue)\" at \(path(context))"
        case .dataCorrupted(let context):
            return "data corrupted at \(path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    /// The start of a body, for error messages.
    static func bodySnippet(_ body: Data, limit: Int = 256) -> String {
        guard !body.isEmpty else { return " (empty body)" }
        let prefix = body.prefix(limit)
        let text = String(decoding: prefix, as: UTF8.self)
        let ellipsis = body.count > limit ? "… (\(body.count) bytes)" : ""
        return "; body: \(text)\(ellipsis)"
    }
}
