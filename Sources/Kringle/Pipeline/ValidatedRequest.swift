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

/// Header fields checked one by one as they are set, for a request being assembled: a
/// later field replaces an earlier one whose name differs at most in case, as
/// `URLRequest.setValue` would (but keeping the new spelling, which HTTP does not mind,
/// RFC 9110 §5.1).
struct CheckedFields: Sendable {
    /// The fields, no two names equal but for case.
    private(set) var dictionary: [String: String] = [:]

    init() {}

    var isEmpty: Bool { dictionary.isEmpty }

    /// Sets `name` to `value`, checked first: FoundationNetworking drops a value with a line
    /// break without a word.
    mutating func set(_ value: String, for name: String) throws {
        try RequestValidation.validateField(name: name, value: value)
        if let twin = dictionary.keys.first(where: { $0.equalsIgnoringASCIICase(name) }) {
            dictionary.removeValue(forKey: twin)
        }
        dictionary[name] = value
    }
}

/// The grammar every request's head is checked against (RFC 9110), before any transport
/// sees it: see ``ValidatedRequest``.
enum RequestValidation {
    /// Throws ``KringleError/invalidRequest(_:)`` naming the method or header that breaks
    /// RFC 9110's grammar: a method (§9.1) and field names (§5.1) are tokens, and field values
    /// (§5.5) hold no CR, LF, NUL or other control character but horizontal tab.
    static func validate(_ request: URLRequest) throws {
        if let method = request.httpMethod { try validateMethod(method) }
        guard let fields = request.allHTTPHeaderFields else { return }
        for (name, value) in fields {
            try validateField(name: name, value: value)
        }
    }

    /// Throws ``KringleError/invalidRequest(_:)`` unless `method` is a token (RFC 9110 §9.1).
    static func validateMethod(_ method: String) throws {
        guard isToken(method) else {
            throw KringleError.invalidRequest(
                "The method \(quoted(method)) is not a token (RFC 9110 §9.1): letters, digits and !#$%&'*+-.^_`|~ only."
            )
        }
    }

    /// Throws ``KringleError/invalidRequest(_:)`` when `name` is not a token or `value` holds
    /// a character a field value may not (RFC 9110 §5.1, §5.5), naming the field and, when
    /// `context` is given, where it is (`"multipart part \"photo\""`).
    static func validateField(name: String, value: String, in context: String? = nil) throws {
        let place = context.map { " of \($0)" } ?? ""
        guard isToken(name) else {
            throw KringleError.invalidRequest(
                "The header name \(quoted(name))\(place) is not a token (RFC 9110 §5.1).")
        }
        if let problem = problem(inValue: value) {
            // The value itself is not shown: it may be a secret.
            throw KringleError.invalidRequest("The value of the header \"\(name)\"\(place) contains \(problem).")
        }
    }

    /// RFC 9110 §5.6.2: `token = 1*tchar`.
    static func isToken(_ text: String) -> Bool {
        text.withContiguousUTF8 { bytes in !bytes.isEmpty && bytes.allSatisfy(\.isHTTPTokenCharacter) }
    }

    /// What makes `value` unfit for a field value, or `nil` when it is fit.
    private static func problem(inValue value: String) -> String? {
        for byte in value.utf8 {
            switch byte {
            case 0x0D, 0x0A: return "a line break (CR or LF)"
            case 0x00: return "a NUL character"
            case 0x09: continue
            case 0x01...0x1F, 0x7F: return "the control character 0x\(String(byte, radix: 16, uppercase: true))"
            default: continue
            }
        }
        return nil
    }

    private static func quoted(_ text: String) -> String {
        "\""
            + text.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? String($0) : $0.escaped(asASCII: true) }
            .joined() + "\""
    }
}
