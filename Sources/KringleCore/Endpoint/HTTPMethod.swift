/// An HTTP request method. The common ones are constants; any other token works too.
///
/// ```swift
/// let purge: HTTPMethod = "PURGE"
/// ```
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method token as sent on the wire, such as `GET`.
    public let rawValue: String

    /// Creates a method from its token.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a method from a string literal.
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    /// `GET`: fetch a resource; safe and idempotent.
    public static let get: HTTPMethod = "GET"
    /// `POST`: send data for the server to process; not idempotent, so never retried by
    /// default.
    public static let post: HTTPMethod = "POST"
    /// `PUT`: replace a resource with the body; idempotent.
    public static let put: HTTPMethod = "PUT"
    /// `PATCH`: change part of a resource; not idempotent.
    public static let patch: HTTPMethod = "PATCH"
    /// `DELETE`: remove a resource; idempotent.
    public static let delete: HTTPMethod = "DELETE"
    /// `HEAD`: like `GET`, but the response carries no body.
    public static let head: HTTPMethod = "HEAD"
    /// `OPTIONS`: ask which methods and features a resource supports.
    public static let options: HTTPMethod = "OPTIONS"

    /// The method token, such as `GET`.
    public var description: String { rawValue }
}
