// Strings byte by byte, read in place: the case rule for field names, and the UTF-8 bytes
// that request assembly, validation and the curl transport scan on every request.

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
