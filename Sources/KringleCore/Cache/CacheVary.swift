import Foundation

/// Selecting a stored response by the request header fields its `Vary` names (RFC 9111 §4.1).
enum CacheVary {
    /// The field names a response's `Vary` lines list, lower-cased; `*` when it varies on
    /// something outside the request.
    static func names(in headers: HTTPHeaders) -> [String] {
        headers.tokens(for: "Vary")
    }

    /// The request's values of the fields `response` varies on, to store beside it.
    static func varyingValues(of request: HTTPRequest, for headers: HTTPHeaders) -> [String: String] {
        var values: [String: String] = [:]
        for name in names(in: headers) where name != "*" {
            if let value = normalizedValue(of: name, in: request) { values[name] = value }
        }
        return values
    }

    /// Whether `stored` may answer `request`: every field its `Vary` names has the same
    /// (normalised) value in both, or is absent from both; `Vary: *` never matches.
    static func matches(_ stored: CachedResponse, _ request: HTTPRequest) -> Bool {
        for name in names(in: stored.headers) {
            guard name != "*", normalizedValue(of: name, in: request) == stored.varyingRequestHeaders[name] else {
                return false
            }
        }
        return true
    }

    /// A field's value with whitespace around list members removed, so that `gzip, br`
    /// and `gzip,br` select the same response (§4.1 allows normalising by the field's
    /// syntax). Case is kept: most fields are case-sensitive.
    private static func normalizedValue(of name: String, in request: HTTPRequest) -> String? {
        request.headers.combinedValue(for: name).map { value in
            value.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ",")
        }
    }
}
