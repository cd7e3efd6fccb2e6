import Foundation

/// One link of a `Link` header field (RFC 8288 §3): its target as written, the relation
/// types of its `rel` parameter, and its other parameters.
///
/// ```swift
/// let links = WebLink.links(in: response.headers.values(for: "Link"))
/// let next = links.first { $0.relations.contains("next") }
/// ```
public struct WebLink: Sendable, Hashable {
    /// The target, the URI reference between `<` and `>`, unresolved.
    public var target: String
    /// The relation types of its `rel` parameter, in lower case (§3.3: compared
    /// case-insensitively); a `rel` may name several, separated by spaces.
    public var relations: [String]
    /// Every parameter, names in lower case (§3: case-insensitive), values unquoted. Only
    /// the first occurrence of a parameter counts (§3.3 and §3.4 say so of `rel`, `anchor`
    /// and the rest); `rel` is among them.
    public var parameters: [String: String]

    /// The target resolved against `base` (§3.1: a relative reference is resolved as RFC
    /// 3986 §5 says); `nil` when it does not form a URL.
    public func url(relativeTo base: URL) -> URL? {
        URL(string: target, relativeTo: base)?.absoluteURL
    }

    /// Every link in `fields`, the values of one or more `Link` header fields, in order. A
    /// link-value that does not parse (no `<…>`) is skipped, not the field.
    public static func links(in fields: [String]) -> [WebLink] {
        fields.flatMap(links(in:))
    }

    /// Every link in one `Link` field value.
    static func links(in field: String) -> [WebLink] {
        var links: [WebLink] = []
        var scanner = LinkScanner(field)
        while !scanner.isAtEnd {
            if let link = scanner.link() { links.append(link) }
            scanner.skip(past: ",")
        }
        return links
    }
}

/// Reads a `Link` field value (RFC 8288 §3): `link-value = "<" URI-Reference ">" *( OWS ";"
/// OWS link-param )`, link-values separated by commas, a parameter's value a token or a
/// quoted-string (RFC 9110 §5.6).
private struct LinkScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ field: String) {
        bytes = Array(field.utf8)
    }

    var isAtEnd: Bool { index >= bytes.count }

    /// The link-value that starts here, if it is one; the scanner stops at the `,` after it
    /// (outside quotes) or at the end.
    mutating func link() -> WebLink? {
        skipWhitespace()
        guard current == UInt8(ascii: "<"), let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else {
            return nil
        }
        let target = String(decoding: bytes[(index + 1)..<close], as: UTF8.self)
        index = close + 1
        var parameters: [String: String] = [:]
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: ";") else { break }
            index += 1
            skipWhitespace()
            let name = token().lowercased()
            skipWhitespace()
            var value = ""
            if current == UInt8(ascii: "=") {
                index += 1
                skipWhitespace()
                value = current == UInt8(ascii: "\"") ? quotedString() : token()
            }
            if !name.isEmpty, parameters[name] == nil { parameters[name] = value }
        }
        let relations = (parameters["rel"] ?? "").lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" })
            .map(String.init)
        return WebLink(target: target, relations: relations, parameters: parameters)
    }

    /// Moves past the next `separator` outside a quoted string, or to the end.
    mutating func skip(past separator: Character) {
        let byte = UInt8(ascii: separator.unicodeScalars.first ?? ",")
        while let current {
            if current == UInt8(ascii: "\"") {
                _ = quotedString()
                continue
            }
            index += 1
            if current == byte { return }
        }
    }

    private var current: UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func skipWhitespace() {
        while current == UInt8(ascii: " ") || current == UInt8(ascii: "\t") { index += 1 }
    }

    /// The bytes up to whitespace, `;`, `,`, `=` or the end.
    private mutating func token() -> String {
        let start = index
        while let byte = current,
            ![UInt8(ascii: " "), 9, UInt8(ascii: ";"), UInt8(ascii: ","), UInt8(ascii: "=")]
                .contains(byte)
        {
            index += 1
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A quoted-string's content, its quoted-pairs undone; an unterminated one runs to the
    /// end.
    private mutating func quotedString() -> String {
        index += 1  // the opening quote
        var content: [UInt8] = []
        while let byte = current {
            index += 1
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\"), let escaped = current {
                content.append(escaped)
                index += 1
            } else {
                content.append(byte)
            }
        }
        return String(decoding: content, as: UTF8.self)
    }
}
