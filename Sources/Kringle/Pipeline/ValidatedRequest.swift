import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request whose method and header fields the client has checked against RFC 9110's
/// grammar: the only kind of request a ``Transport`` is given.
///
/// A transport either drops a bad header without a word (FoundationNetworking) or splices it
/// into the request (a CR LF in a value starts a header of the attacker's choosing). So the
/// check is not a step a code path may skip: a `ValidatedRequest` is made only by the check
/// (``init(_:)``), and everything that changes one after it (the cookie jar's `Cookie`
/// header, a body) checks what it adds. An interceptor's or a redirect's new request is a
/// `URLRequest`, which must pass the check again before it can be sent.
///
/// ```swift
/// var request = URLRequest(url: URL(string: "https://example.com/cats")!)
/// request.setValue("Bearer abc", forHTTPHeaderField: "Authorization")
/// let checked = try ValidatedRequest(request)  // throws KringleError.invalidRequest if not
/// transport.send(checked)
/// ```
public struct ValidatedRequest: Sendable {
    /// The request as it was checked.
    public let urlRequest: URLRequest

    /// Checks `request`: its method must be a token (RFC 9110 §9.1), its field names tokens
    /// (§5.1) and its field values free of CR, LF, NUL and other control characters but
    /// horizontal tab (§5.5).
    ///
    /// - Throws: ``KringleError/invalidRequest(_:)`` naming the method or field that breaks
    ///   the grammar (never a field's value: it may be a secret).
    public init(_ request: URLRequest) throws {
        try RequestValidation.validate(request)
        urlRequest = request
    }

    /// A request assembled from fields that were each checked as they were set: only the
    /// method is left to check. Made here from its parts, so that no field can come along
    /// unchecked.
    init(url: URL, method: HTTPMethod, timeout: TimeInterval, body: Data?, fields: CheckedFields) throws {
        var request = URLRequest(url: url)
        // GET is URLRequest's own default, and a token; every change to a URLRequest costs.
        if method != .get {
            try RequestValidation.validateMethod(method.rawValue)
            request.httpMethod = method.rawValue
        }
        // Set, not passed to the initialiser: on Linux only the setter marks the timeout as
        // chosen, and a URLSession otherwise applies its own `timeoutIntervalForRequest`.
        request.timeoutInterval = timeout
        if let body { request.httpBody = body }
        // One assignment: on Linux each `setValue` checks the value again, capitalises the
        // name and searches the fields so far.
        if !fields.isEmpty { request.allHTTPHeaderFields = fields.dictionary }
        urlRequest = request
    }

    /// The URL the request goes to.
    public var url: URL? { urlRequest.url }

    /// The request's method, `GET` when the request names none.
    public var method: String { urlRequest.httpMethod ?? "GET" }

    /// This request with `value` as its field `name` (or without the field, for `nil`), the
    /// field checked as ``init(_:)`` checks every field.
    ///
    /// - Throws: ``KringleError/invalidRequest(_:)`` when the name or value breaks the grammar.
    public func setting(_ value: String?, forField name: String) throws -> ValidatedRequest {
        if let value { try RequestValidation.validateField(name: name, value: value) }
        var request = urlRequest
        request.setValue(value, forHTTPHeaderField: name)
        return ValidatedRequest(checked: request)
    }

    /// This request with `body` as its body: a body is bytes, which the grammar of the
    /// request's head does not constrain.
    public func withBody(_ body: Data?) -> ValidatedRequest {
        var request = urlRequest
        request.httpBody = body
        return ValidatedRequest(checked: request)
    }

    /// A request changed only in ways that keep it valid, by the methods above.
    private init(checked request: URLRequest) {
        urlRequest = request
    }
}
