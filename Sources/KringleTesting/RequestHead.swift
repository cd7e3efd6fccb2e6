/// The request line and header section of one request, as parsed from the wire.
struct RequestHead {
    /// The method token, such as `GET`.
    var method: String
    /// The raw request-target.
    var target: String
    /// The version as sent, such as `HTTP/1.1`.
    var version: String
    /// The minor version digit; the parser only accepts major version 1.
    var minorVersion: Int
    /// Header fields in order, repeats kept.
    var headers: [(name: String, value: String)]

    /// Values of every field called `name` (lower case), split at commas into lower-cased list
    /// members with surrounding whitespace trimmed (RFC 9110 §5.6.1 list syntax).
    func listMembers(_ name: String) -> [String] {
        values(name).flatMap { value in
            value.split(separator: ",").map { $0.normalizedListMember() }.filter { !$0.isEmpty }
        }
    }

    /// Values of every field called `name` (lower case), unsplit.
    func values(_ name: String) -> [String] {
        headers.compactMap { $0.name.utf8.count == name.utf8.count && $0.name.lowercased() == name ? $0.value : nil }
    }
}

extension Substring {
    /// One member of a comma-separated field value, compared case-insensitively by callers:
    /// leading and trailing spaces and tabs (OWS, RFC 9110 §5.6.3) dropped, then lower-cased.
    func normalizedListMember() -> String {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text.lowercased()
    }
}
