/// The `Content-Range` of a single-part 206 response (RFC 9110 §14.4):
/// `bytes first-last/complete`, where `complete` may be `*` (unknown).
struct ContentRange: Sendable, Equatable {
    /// The offset of the first byte sent.
    var first: Int64
    /// The offset of the last byte sent (inclusive).
    var last: Int64
    /// The length of the whole representation, or `nil` for `*`.
    var completeLength: Int64?

    /// How many bytes the range holds.
    var count: Int64 { last - first + 1 }

    /// A range from its parts, which must already be valid.
    init(first: Int64, last: Int64, completeLength: Int64?) {
        self.first = first
        self.last = last
        self.completeLength = completeLength
    }

    /// Parses a field value.
    ///
    /// `Content-Range = range-unit SP ( range-resp / unsatisfied-range )`, with
    /// `range-resp = incl-range "/" ( complete-length / "*" )`,
    /// `incl-range = first-pos "-" last-pos`. The unit is matched case-insensitively.
    ///
    /// - Returns: `nil` for anything else, including an `unsatisfied-range` (`bytes */1000`,
    ///   which belongs to a 416), a range whose last position comes before its first, one
    ///   that ends at or past the complete length ("invalid" in §14.4), and numbers that do
    ///   not fit in 63 bits.
    init?(_ value: String) {
        let text = Substring(value)
        guard text.utf8.count > 6, text.prefix(6).lowercased() == "bytes " else { return nil }
        var rest = text.dropFirst(6).utf8[...]
        guard let first = Self.number(&rest), rest.popFirst() == UInt8(ascii: "-"),
            let last = Self.number(&rest), rest.popFirst() == UInt8(ascii: "/")
        else { return nil }
        let completeLength: Int64?
        if rest.elementsEqual("*".utf8) {
            completeLength = nil
        } else {
            guard let length = Self.number(&rest), rest.isEmpty else { return nil }
            completeLength = length
        }
        guard first <= last, completeLength.map({ last < $0 }) ?? true else { return nil }
        self.init(first: first, last: last, completeLength: completeLength)
    }

    /// Consumes `1*DIGIT` from the front of `bytes`.
    private static func number(_ bytes: inout Substring.UTF8View.SubSequence) -> Int64? {
        let digits = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard !digits.isEmpty, digits.count <= 19 else { return nil }
        var value: Int64 = 0
        for digit in digits {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            value = sum
        }
        bytes = bytes.dropFirst(digits.count)
        return value
    }
}
