import Foundation

/// The grammar every request's head is checked against (RFC 9110), before any transport
/// sees it: see ``ValidatedRequest``.
enum RequestValidation {
    /// Throws ``KringleError/invalidRequest(_:)`` naming the method or header that breaks
    /// RFC 9110's grammar: a method (§9.1) and field names (§5.1) are tokens, and field values
    /// (§5.5) hold no CR, LF, NUL or other control character but horizontal tab.
    static func validate(_ request: HTTPRequest) throws {
        try validateMethod(request.method.rawValue)
        for field in request.headers {
            try validateField(name: field.name, value: field.value)
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
