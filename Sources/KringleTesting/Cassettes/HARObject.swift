/// A HAR object that is read and written by its table of fields, ``HARFields``: the one
/// `Codable` implementation all of ``HAR``'s types share.
protocol HARObject: Codable, Sendable {
    /// The fields the object does not model (custom, or unknown to Kringle), as read.
    var custom: [String: HARValue] { get set }
    /// The fields HAR 1.2 defines for this object, which Kringle models, in the order they are
    /// written; any other is kept in ``custom``.
    static var coding: HARFields<Self> { get }
}

extension HARObject {
    /// Reads the object: the fields its ``coding`` lists, and every other one into its
    /// custom fields.
    public init(from decoder: any Decoder) throws {
        self = try Self.coding.decode(from: decoder)
    }

    /// Writes the object: the fields its ``coding`` lists, in that order, then its custom
    /// fields.
    public func encode(to encoder: any Encoder) throws {
        try Self.coding.encode(self, to: encoder)
    }
}
