/// Header fields checked one by one as they are set, for a request being assembled: a
/// later field replaces an earlier one whose name differs at most in case, as
/// `URLRequest.setValue` would (but keeping the new spelling, which HTTP does not mind,
/// RFC 9110 §5.1).
struct CheckedFields: Sendable {
    /// The fields, no two names equal but for case.
    private(set) var dictionary: [String: String] = [:]

    init() {}

    var isEmpty: Bool { dictionary.isEmpty }

    /// Whether a field is named `name`, in any case.
    func contains(_ name: String) -> Bool {
        dictionary.keys.contains { $0.equalsIgnoringASCIICase(name) }
    }

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
