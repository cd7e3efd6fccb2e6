/// A key of a HAR object, known or custom.
struct HARKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

// Reading is lenient where the spec is strict: tools (Charles, older browsers) leave out
// fields HAR 1.2 requires, such as `comment`-free `cookies` or `bodySize`, so a missing
// field takes its "unknown" value instead of failing the whole file. Writing always puts
// every required field.
extension KeyedDecodingContainer where Key == HARKey {
    /// The field `name`, or `fallback` when it is missing or `null`.
    func field<T: Decodable>(_ name: String, or fallback: T) throws -> T {
        try decodeIfPresent(T.self, forKey: HARKey(name)) ?? fallback
    }

    /// The field `name`, `nil` when missing.
    func optional<T: Decodable>(_ name: String) throws -> T? {
        try decodeIfPresent(T.self, forKey: HARKey(name))
    }

    /// Every field but `modelled` (the fields of the spec the type reads itself), kept as
    /// read: the custom fields HAR 1.2 allows (names beginning with `_`), and any other a tool
    /// wrote (Chrome's `sameSite` on a cookie), so that writing the file again loses none.
    func customFields(besides modelled: Set<String>) throws -> [String: HARValue] {
        var fields: [String: HARValue] = [:]
        for key in allKeys where !modelled.contains(key.stringValue) {
            fields[key.stringValue] = try decode(HARValue.self, forKey: key)
        }
        return fields
    }
}

extension KeyedEncodingContainer where Key == HARKey {
    /// Writes `value` as the field `name`.
    mutating func put<T: Encodable>(_ value: T, _ name: String) throws {
        try encode(value, forKey: HARKey(name))
    }

    /// Writes `value` as the field `name` unless it is `nil`.
    mutating func put<T: Encodable>(_ value: T?, _ name: String) throws {
        try encodeIfPresent(value, forKey: HARKey(name))
    }

    /// Writes the custom fields under their names, as read; a name that is one of
    /// `modelled`, the fields of the spec the type writes itself, is written with the `_`
    /// that HAR 1.2 gives custom fields, so it cannot clash with them.
    mutating func putCustom(_ fields: [String: HARValue], besides modelled: Set<String>) throws {
        for (name, value) in fields {
            try encode(value, forKey: HARKey(modelled.contains(name) ? "_" + name : name))
        }
    }
}
