import Foundation

/// The little of RFC 8941 (Structured Field Values) the rate limit fields need: a list of
/// members, each an item with parameters (`"default";r=0;t=5`), or a dictionary member
/// (`remaining=0`), read leniently.
enum StructuredList {
    /// One member: its bare value (a token, integer or string, unquoted), if it has one, and
    /// its parameters, names in lower case. A dictionary member `name=value` is a parameter
    /// without a value.
    struct Member: Equatable, Sendable {
        var value: String?
        var parameters: [String: String]

        /// The first of `names` that is a parameter.
        func parameter(_ names: String...) -> String? {
            names.lazy.compactMap { parameters[$0] }.first
        }
    }

    /// The members of `field`. Dictionary members (the earlier drafts' form) are merged into
    /// one, after the list's items.
    static func members(of field: String) -> [Member] {
        var items: [Member] = []
        var dictionary: [String: String] = [:]
        for member in split(Substring(field), at: ",") {
            let parts = split(member, at: ";")
            guard let first = parts.first else { continue }
            var parameters: [String: String] = [:]
            for part in parts.dropFirst() {
                if let (name, value) = pair(part) { parameters[name] = value }
            }
            if let (name, value) = pair(first) {
                dictionary[name] = value
                dictionary.merge(parameters) { old, _ in old }
            } else {
                items.append(Member(value: unquoted(first), parameters: parameters))
            }
        }
        if !dictionary.isEmpty { items.append(Member(value: nil, parameters: dictionary)) }
        return items
    }

    /// `text` cut at each `separator` outside a quoted string, each piece trimmed.
    private static func split(_ text: Substring, at separator: Character) -> [Substring] {
        var pieces: [Substring] = []
        var start = text.startIndex
        var quoted = false
        var escaped = false
        for index in text.indices {
            let character = text[index]
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == separator && !quoted {
                pieces.append(trimmed(text[start..<index]))
                start = text.index(after: index)
            }
        }
        pieces.append(trimmed(text[start...]))
        return pieces.filter { !$0.isEmpty }
    }

    /// `name=value`, the name in lower case and the value unquoted; `nil` without `=`
    /// outside quotes.
    private static func pair(_ text: Substring) -> (String, String)? {
        guard !text.hasPrefix("\""), let equals = text.firstIndex(of: "=") else { return nil }
        let name = trimmed(text[..<equals]).lowercased()
        return name.isEmpty ? nil : (name, unquoted(trimmed(text[text.index(after: equals)...])))
    }

    private static func unquoted(_ text: Substring) -> String {
        guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return String(text) }
        return String(text.dropFirst().dropLast())
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }),
            let last = text.lastIndex(where: { !isSpace($0) })
        else { return text[text.endIndex...] }
        return text[first...last]
    }
}
