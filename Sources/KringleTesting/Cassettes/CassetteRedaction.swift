import Foundation

/// What a recorder hides before an exchange reaches a cassette: the client's ``/KringleCore/Redaction``
/// rules for headers, query items and URL passwords; the values (not the names) of cookies;
/// and whatever a body hook removes from the bodies.
///
/// ```swift
/// var redaction = CassetteRedaction()
/// redaction.rules.additionalHeaderNames.insert("X-API-Key")
/// redaction.body = CassetteRedaction.jsonFields(["password", "token"])
/// let transport = RecordingTransport(recording: CurlTransport(), to: cassette, redaction: redaction)
/// ```
public struct CassetteRedaction: Sendable {
    /// A body on its way to a cassette, for the ``body`` hook to rewrite.
    public struct Body: Sendable {
        /// Whether it is the request's body or the response's.
        public var isRequest: Bool
        /// The URL of the exchange, redacted.
        public var url: URL
        /// Its `Content-Type`, if any.
        public var contentType: String?
        /// The bytes (a response's decoded from any content coding).
        public var data: Data
    }

    /// The header, query and URL rules: the client's defaults unless changed. Give the same
    /// rules as the client's `configuration.redaction`.
    public var rules: Redaction
    /// Rewrites a body before it is written; `nil` writes bodies as they are.
    public var body: (@Sendable (Body) -> Data)?

    /// The defaults of ``/KringleCore/Redaction``, plus `rules`' additions, and the body hook.
    public init(rules: Redaction = .default, body: (@Sendable (Body) -> Data)? = nil) {
        self.rules = rules
        self.body = body
    }

    /// A body hook that replaces the value of every JSON object member named in `names`
    /// (case-insensitive), at any depth, with ``/KringleCore/Redaction/placeholder`` (`***`,
    /// as everywhere Kringle hides a secret); a body that is not JSON is written as it is.
    public static func jsonFields(_ names: Set<String>) -> @Sendable (Body) -> Data {
        let lowercased = Set(names.map { $0.lowercased() })
        return { body in
            guard !body.data.isEmpty,
                let value = try? JSONSerialization.jsonObject(with: body.data, options: [.fragmentsAllowed])
            else { return body.data }
            let redacted = hiding(lowercased, in: value)
            let options: JSONSerialization.WritingOptions = [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]
            return (try? JSONSerialization.data(withJSONObject: redacted, options: options)) ?? body.data
        }
    }

    private static func hiding(_ names: Set<String>, in value: Any) -> Any {
        if let object = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, member) in object {
                result[key] = names.contains(key.lowercased()) ? Redaction.placeholder : hiding(names, in: member)
            }
            return result
        }
        if let array = value as? [Any] { return array.map { hiding(names, in: $0) } }
        return value
    }

    /// `url` as a cassette records it.
    func url(_ url: URL) -> URL {
        rules.redacting(url).value
    }

    /// `fields` as a cassette records them: a secret header's value replaced, except that a
    /// `Cookie` or `Set-Cookie` keeps its cookie names and attributes and loses only the values
    /// (so a replayed `Set-Cookie` still reaches the jar); URLs in `Location` and the like
    /// redacted as ``url(_:)`` does.
    func headers(_ fields: [(name: String, value: String)]) -> [(name: String, value: String)] {
        let redacted = rules.redacting(HTTPHeaders(fields.map { ($0.name, $0.value) })).value.fields
        return zip(fields, redacted).map { original, field in
            guard field.value == Redaction.placeholder, field.value != original.value else {
                return (field.name, field.value)
            }
            switch original.name.lowercased() {
            case "cookie": return (field.name, Self.cookieHeader(original.value))
            case "set-cookie": return (field.name, Self.setCookieHeader(original.value))
            default: return (field.name, field.value)
            }
        }
    }

    /// Whether the rules hide the value of the header `name`.
    func hidesHeader(_ name: String) -> Bool {
        rules.redacting(HTTPHeaders([(name, "x")])).value.fields.first?.value == Redaction.placeholder
    }

    /// `body` after the hook.
    func body(_ data: Data, isRequest: Bool, url: URL, contentType: String?) -> Data {
        guard let hook = body else { return data }
        return hook(Body(isRequest: isRequest, url: url, contentType: contentType, data: data))
    }

    /// `a=1; b=2` → `a=***; b=***` (RFC 6265 §4.2.1).
    private static func cookieHeader(_ value: String) -> String {
        value.split(separator: ";").map { pair in
            cookieName(pair) + "=" + Redaction.placeholder
        }.joined(separator: "; ")
    }

    /// The first pair's value replaced; the attributes kept (RFC 6265 §4.1.1).
    private static func setCookieHeader(_ value: String) -> String {
        var parts = value.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first else { return Redaction.placeholder }
        parts[0] = cookieName(first) + "=" + Redaction.placeholder
        return parts.joined(separator: ";")
    }

    /// The name of a `name=value` pair; a pair without `=` is all value and has no name, as
    /// browsers read it (RFC 6265bis §5.6), so nothing of it is kept.
    static func cookieName(_ pair: some StringProtocol) -> String {
        guard let equals = pair.firstIndex(of: "=") else { return "" }
        return pair[..<equals].trimmingCharacters(in: .whitespaces)
    }
}
