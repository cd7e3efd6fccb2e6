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
