extension DefaultStringInterpolation {
    /// Interpolates `value` as one path segment: `/`, `%`, `?`, `#` and everything else that
    /// could change the path's shape percent-encoded.
    ///
    /// Use it for every part of an ``Endpoint/path`` that comes from a user or another
    /// system, so that a name like `"a/b"` stays one segment:
    /// ```swift
    /// case .pet(let name): return "/cats/\(pathSegment: name)/pet"
    /// ```
    /// A value of `.` or `..` stays what it is, and the client rejects the path with
    /// ``KringleError/invalidRequest(_:)`` rather than let the server walk up the tree.
    public mutating func appendInterpolation(pathSegment value: String) {
        appendLiteral(PercentEncoding.pathSegment(value))
    }
}
