import Foundation

/// How one HAR object is read and written: the fields HAR 1.2 defines for it, in the order
/// Kringle writes them, each a name, the property that holds it and what a missing one reads
/// as. One list serves both directions, so that reading and writing cannot disagree; every
/// other field is kept in the object's `custom` fields (see ``HAR``).
struct HARFields<Object: HARObject>: Sendable {
    /// One field: its name, and how it is read into an object and written from one.
    struct Field: Sendable {
        let name: String
        let read: @Sendable (inout Object, KeyedDecodingContainer<HARKey>) throws -> Void
        let write: @Sendable (Object, inout KeyedEncodingContainer<HARKey>) throws -> Void
    }

    /// The value reading starts from; every field overwrites its part.
    let blank: Object
    /// The fields, in the order they are written.
    let fields: [Field]
    /// The fields' names: a custom field of the same name is written with a `_` before it.
    let names: Set<String>

    init(blank: Object, _ fields: [Field]) {
        self.blank = blank
        self.fields = fields
        self.names = Set(fields.map(\.name))
    }

    /// Reads an object.
    func decode(from decoder: any Decoder) throws -> Object {
        let container = try decoder.container(keyedBy: HARKey.self)
        var object = blank
        for field in fields {
            try field.read(&object, container)
        }
        object.custom = try container.customFields(besides: names)
        return object
    }

    /// Writes `object`.
    func encode(_ object: Object, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: HARKey.self)
        for field in fields {
            try field.write(object, &container)
        }
        try container.putCustom(object.custom, besides: names)
    }
}

extension HARFields.Field {
    /// A field every object has: it reads as `fallback` when missing or `null`.
    static func field<Value: Codable & Sendable>(
        _ name: String, _ property: WritableKeyPath<Object, Value> & Sendable, or fallback: Value
    ) -> Self {
        Self(
            name: name,
            read: { object, container in object[keyPath: property] = try container.field(name, or: fallback) },
            write: { object, container in try container.put(object[keyPath: property], name) })
    }

    /// A field the file must have: reading fails without it.
    static func required<Value: Codable & Sendable>(
        _ name: String, _ property: WritableKeyPath<Object, Value> & Sendable
    ) -> Self {
        Self(
            name: name,
            read: { object, container in
                object[keyPath: property] = try container.decode(Value.self, forKey: HARKey(name))
            },
            write: { object, container in try container.put(object[keyPath: property], name) })
    }

    /// A field that may be absent: `nil` when missing, and not written when `nil`.
    static func optional<Value: Codable & Sendable>(
        _ name: String, _ property: WritableKeyPath<Object, Value?> & Sendable
    ) -> Self {
        Self(
            name: name,
            read: { object, container in object[keyPath: property] = try container.optional(name) },
            write: { object, container in try container.put(object[keyPath: property], name) })
    }
}
