extension String {
    /// Whether the two are equal when ASCII letters are compared without regard to case, as
    /// HTTP compares field names (RFC 9110 §5.1). Byte by byte, without building lower-case
    /// copies: header names are compared on every request.
    func equalsIgnoringASCIICase(_ other: String) -> Bool {
        utf8.count == other.utf8.count && zip(utf8, other.utf8).allSatisfy { Self.lowered($0) == Self.lowered($1) }
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }
}
