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

    /// Creates headers from a dictionary literal.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value for `name` (case-insensitive), or `nil`.
    ///
    /// Setting a value replaces every field of that name; setting `nil` removes them.
    public subscript(name: String) -> String? {
        get { fields.first { Self.same($0.name, name) }?.value }
        set {
            remove(name: name)
            if let newValue { add(name: name, value: newValue) }
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

// MARK: - Field names byte by byte: the case rule and the token characters, read in place

extension String {
    /// Whether the two are equal when ASCII letters are compared without regard to case, as
    /// HTTP compares field names (RFC 9110 §5.1). Byte by byte, without building lower-case
    /// copies: header names are compared on every request.
    func equalsIgnoringASCIICase(_ other: String) -> Bool {
        // Most names differ in length, which a native string knows without reading it.
        guard utf8.count == other.utf8.count else { return false }
        return withContiguousUTF8 { bytes in
            other.withContiguousUTF8 { otherBytes in
                for index in 0..<bytes.count where bytes[index].asciiLowercased != otherBytes[index].asciiLowercased {
                    return false
                }
                return true
            }
        }
    }
}

extension UInt8 {
    /// The byte with an ASCII upper-case letter turned lower case; any other byte as it is.
    var asciiLowercased: UInt8 {
        (0x41...0x5A).contains(self) ? self | 0x20 : self
    }
}

extension UInt8 {
    /// Whether the byte is a `tchar`, a character of an HTTP token (RFC 9110 §5.6.2): what
    /// methods and field names are made of. Shared with `LoopbackServer`'s parser.
    @_spi(KringleInternals)
    public var isHTTPTokenCharacter: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(self)
        }
    }
}

extension String {
    /// `body` over the string's UTF-8 bytes, read in place.
    ///
    /// The checks that run on every request (field names and values, URLs, paths) go
    /// through this: iterating `utf8` costs about ten times as much per byte, and
    /// `Array(utf8)` allocates. A native string is read where it is; only a bridged one is
    /// copied first.
    func withContiguousUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var contiguous = self
        return try contiguous.withUTF8(body)
    }
}
