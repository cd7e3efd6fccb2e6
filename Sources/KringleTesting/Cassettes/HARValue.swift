import Foundation

/// Any JSON value: what a HAR file's custom fields (names beginning with `_`, HAR 1.2
/// "Custom fields") and the other fields Kringle does not model hold, kept as read so that
/// writing the file again loses none of them.
///
/// ```swift
/// entry.custom["_priority"] = .string("High")
/// ```
public enum HARValue: Sendable, Hashable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number (written without a fraction when it is whole).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([HARValue])
    /// An object.
    case object([String: HARValue])

    /// Reads any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([HARValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: HARValue].self))
        }
    }

    /// Writes the value as it was read.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            // `3`, not `3.0`: a reader that expects an integer (a size, a status) gets one.
            if value.rounded() == value, abs(value) < 1e15 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
