import Foundation

/// A request whose method and header fields the client has checked against RFC 9110's
/// grammar: the only kind of request a ``Transport`` is given.
///
/// A transport either drops a bad header without a word (FoundationNetworking) or splices it
/// into the request (a CR LF in a value starts a header of the attacker's choosing). So the
/// check is not a step a code path may skip: a `ValidatedRequest` is made only by the check
/// (``init(_:)``), and everything that changes one after it (the cookie jar's `Cookie`
/// header, a body) checks what it adds. An interceptor's or a redirect's new request is an
/// ``HTTPRequest``, which must pass the check again before it can be sent.
///
/// ```swift
/// var request = HTTPRequest(url: URL(string: "https://example.com/cats")!)
/// request.headers["Authorization"] = "Bearer abc"
/// let checked = try ValidatedRequest(request)  // throws KringleError.invalidRequest if not
/// transport.send(checked)
/// ```
public struct ValidatedRequest: Sendable {
    /// The request as it was checked.
    public let request: HTTPRequest

    /// Checks `request`: its method must be a token (RFC 9110 §9.1), its field names tokens
    /// (§5.1) and its field values free of CR, LF, NUL and other control characters but
    /// horizontal tab (§5.5).
    ///
    /// - Throws: ``KringleError/invalidRequest(_:)`` naming the method or field that breaks
    ///   the grammar (never a field's value: it may be a secret).
    public init(_ request: HTTPRequest) throws {
        try RequestValidation.validate(request)
        self.request = request
    }

    /// A request assembled from fields that were each checked as they were set: only the
    /// method is left to check. Made here from its parts, so that no field can come along
    /// unchecked.
    init(url: URL, method: HTTPMethod, timeout: TimeInterval, body: Data?, fields: CheckedFields) throws {
        if method != .get { try RequestValidation.validateMethod(method.rawValue) }
        request = HTTPRequest(url: url, method: method, headers: fields.headers, body: body, timeout: timeout)
    }

    /// The URL the request goes to.
    public var url: URL { request.url }

    /// The request's method.
    public var method: HTTPMethod { request.method }

    /// This request with `value` as its field `name` (or without the field, for `nil`), the
    /// field checked as ``init(_:)`` checks every field.
    ///
    /// - Throws: ``KringleError/invalidRequest(_:)`` when the name or value breaks the grammar.
    public func setting(_ value: String?, forField name: String) throws -> ValidatedRequest {
        if let value { try RequestValidation.validateField(name: name, value: value) }
        var request = request
        request.headers[name] = value
        return ValidatedRequest(checked: request)
    }

    /// This request with `body` as its body: a body is bytes, which the grammar of the
    /// request's head does not constrain.
    public func withBody(_ body: Data?) -> ValidatedRequest {
        var request = request
        request.body = body
        return ValidatedRequest(checked: request)
    }

    /// This request sent to `url` instead: a URL is not part of the head's grammar that the
    /// check covers (a transport refuses one it cannot send).
    func with(url: URL) -> ValidatedRequest {
        var request = request
        request.url = url
        return ValidatedRequest(checked: request)
    }

    /// A request changed only in ways that keep it valid, by the methods above.
    private init(checked request: HTTPRequest) {
        self.request = request
    }
}
