/// HTTP header fields: case-insensitive names, several values per name kept in order.
///
/// ```swift
/// var headers: HTTPHeaders = ["Content-Type": "application/json"]
/// headers.add(name: "Set-Cookie", value: "a=1")
/// headers.add(name: "Set-Cookie", value: "b=2")
/// headers["content-type"]                // "application/json"
/// headers.values(for: "set-cookie")      // ["a=1", "b=2"]
/// ```
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header line.
    public struct Field: Sendable, Hashable {
        /// The name as it was given (compare with ``HTTPHeaders`` lookups, which ignore case).
        public var name: String
        /// The value, without surrounding whitespace.
        public var value: String

        /// Creates a header field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Every field in order, repeated names included.
    public private(set) var fields: [Field] = []

    /// Creates empty headers.
    public init() {}

    /// Creates headers from `(name, value)` pairs, keeping their order and repeats.
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// Headers that are `fields`, as they are (a transport's, gathered in that form).
    init(fields: [Field]) {
        self.fields = fields
    }

    /// Creates headers from a dictionary literal.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value for `name` (case-insensitive), or `nil`.
    ///
    /// Setting a value replaces every field of that name with one, where the first of them
    /// was (or at the end); setting `nil` removes them.
    public subscript(name: String) -> String? {
        get { fields.first { Self.same($0.name, name) }?.value }
        set {
            guard let newValue else { return remove(name: name) }
            guard let first = fields.firstIndex(where: { Self.same($0.name, name) }) else {
                return add(name: name, value: newValue)
            }
            fields[first] = Field(name: name, value: newValue)
            if fields[(first + 1)...].contains(where: { Self.same($0.name, name) }) {
                fields = fields.enumerated().filter { $0.offset <= first || !Self.same($0.element.name, name) }
                    .map(\.element)
            }
        }
    }

    /// Every value for `name` (case-insensitive), in order.
    public func values(for name: String) -> [String] {
        // One pass, with no closure between the fields and the comparison: it runs for every
        // response (`Set-Cookie`).
        var values: [String] = []
        for field in fields where Self.same(field.name, name) {
            values.append(field.value)
        }
        return values
    }

    /// Every `name` line's value in one, joined with `separator` (RFC 9110 §5.3: a field
    /// repeated is the list of its lines' values; `Cookie` joins with `"; "`, RFC 6265 §5.4),
    /// or `nil` when there is none.
    func combinedValue(for name: String, separator: String = ", ") -> String? {
        let values = values(for: name)
        return values.count > 1 ? values.joined(separator: separator) : values.first
    }

    /// Whether a field named `name` (case-insensitive) exists.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.same($0.name, name) }
    }

    /// Appends a field, keeping any existing ones with the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field named `name` (case-insensitive).
    public mutating func remove(name: String) {
        fields.removeAll { Self.same($0.name, name) }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// Iterates over the fields in order, repeated names included.
    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// One `Name: value` line per field, in order.
    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    /// Header names are case-insensitive (RFC 9110 §5.1); names are ASCII tokens.
    static func same(_ lhs: String, _ rhs: String) -> Bool {
        lhs.equalsIgnoringASCIICase(rhs)
    }
}

extension HTTPHeaders {
    /// The members of every `name` line read as a comma-separated list of tokens (RFC 9110
    /// §5.6.1), trimmed and lower-cased, empty members dropped: `Vary`, `Connection`.
    func tokens(for name: String) -> [String] {
        values(for: name).flatMap { line in
            line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter {
                !$0.isEmpty
            }
        }
    }
}
