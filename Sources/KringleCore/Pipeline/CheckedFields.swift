/// Header fields checked one by one as they are set, for a request being assembled: a
/// later field replaces an earlier one whose name differs at most in case (keeping the new
/// spelling, which HTTP does not mind, RFC 9110 §5.1).
struct CheckedFields: Sendable {
    /// The fields, no two names equal but for case, in the order they were first set.
    private(set) var headers = HTTPHeaders()

    init() {}

    var isEmpty: Bool { headers.isEmpty }

    /// Whether a field is named `name`, in any case.
    func contains(_ name: String) -> Bool {
        headers.contains(name)
    }

    /// Sets `name` to `value`, checked first: a transport would drop a value with a line
    /// break without a word, or send it.
    mutating func set(_ value: String, for name: String) throws {
        try RequestValidation.validateField(name: name, value: value)
        headers[name] = value
    }

    /// Sets every field of `fields` as ``set(_:for:)`` does, in the byte order of their names:
    /// a dictionary's own order changes from process to process, and the fields go on the
    /// wire in this order.
    mutating func set(_ fields: [String: String]) throws {
        guard fields.count > 1 else {
            for (name, value) in fields { try set(value, for: name) }
            return
        }
        for (name, value) in fields.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            try set(value, for: name)
        }
    }
}
