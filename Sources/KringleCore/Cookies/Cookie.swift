import Foundation

/// An HTTP cookie as kept by a ``CookieJar``: the RFC 6265 §5.3 storage-model fields.
///
/// A jar creates cookies from `Set-Cookie` headers; you can also build one yourself,
/// for example to inspect or compare what ``CookieJar/allCookies`` returns.
///
/// ```swift
/// let session = Cookie(name: "sid", value: "31d4d96e407aad42", domain: "example.com",
///                      secure: true, httpOnly: true)
/// ```
public struct Cookie: Sendable, Hashable, Codable {
    /// The cookie's name. Empty for a nameless cookie (RFC 6265bis: `Set-Cookie: foo`),
    /// which is sent as just its value.
    public var name: String

    /// The cookie's value, exactly as received (surrounding double quotes are kept).
    public var value: String

    /// The canonical (lowercased, punycode) host or domain the cookie belongs to,
    /// without a leading dot.
    public var domain: String

    /// The cookie's path; the cookie is sent to request paths that path-match it
    /// (RFC 6265 §5.1.4).
    public var path: String

    /// When the cookie expires; `nil` for a session cookie, which is never persisted.
    public var expires: Date?

    /// Whether the cookie is sent only over secure schemes (`https`, `wss`).
    public var secure: Bool

    /// Whether the server set `HttpOnly`. Kringle is an HTTP API, so such cookies
    /// are stored and sent like any other; the flag is kept for callers that care.
    public var httpOnly: Bool

    /// `true` when the cookie is sent only to exactly ``domain``, `false` when it is
    /// also sent to its subdomains (it came with a `Domain` attribute).
    public var hostOnly: Bool

    /// The `SameSite` attribute as received. Kringle stores it but does not filter
    /// by it: an HTTP client has no notion of the "site for cookies".
    public var sameSite: SameSite

    /// When the cookie was first stored; replacing a cookie keeps the old creation
    /// time (RFC 6265 §5.3 step 11.3). Used to order the `Cookie` header.
    public var creationTime: Date

    /// When the cookie was last stored or sent; the least recently accessed cookies
    /// are evicted first when the jar is full.
    public var lastAccessTime: Date

    /// Creates a cookie.
    ///
    /// - Parameters:
    ///   - name: The name; empty for a nameless cookie.
    ///   - value: The value.
    ///   - domain: The canonical host or domain, lowercased, without a leading dot.
    ///   - path: The path; defaults to `/`.
    ///   - expires: The expiry date, or `nil` for a session cookie.
    ///   - secure: Whether the cookie is sent only over secure schemes.
    ///   - httpOnly: Whether the server marked the cookie `HttpOnly`.
    ///   - hostOnly: Whether the cookie is sent to ``domain`` only (not its subdomains).
    ///   - sameSite: The `SameSite` attribute.
    ///   - creationTime: When the cookie was created.
    ///   - lastAccessTime: When the cookie was last used; defaults to `creationTime`.
    public init(
        name: String,
        value: String,
        domain: String,
        path: String = "/",
        expires: Date? = nil,
        secure: Bool = false,
        httpOnly: Bool = false,
        hostOnly: Bool = true,
        sameSite: SameSite = .unspecified,
        creationTime: Date = Date(),
        lastAccessTime: Date? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.path = path
        self.expires = expires
        self.secure = secure
        self.httpOnly = httpOnly
        self.hostOnly = hostOnly
        self.sameSite = sameSite
        self.creationTime = creationTime
        self.lastAccessTime = lastAccessTime ?? creationTime
    }

    /// `true` when the cookie has an expiry date, so it survives the session and is
    /// written by a persistent jar (RFC 6265 §5.3 "persistent-flag").
    public var isPersistent: Bool { expires != nil }

    /// Whether the cookie has expired at `now`: its expiry is at or before `now`.
    ///
    /// - Parameter now: The current time.
    /// - Returns: `true` when the cookie must no longer be sent.
    public func isExpired(at now: Date) -> Bool {
        guard let expires else { return false }
        return expires <= now
    }

    /// The cookie as it appears in a `Cookie` header: `name=value`, or just the value
    /// for a nameless cookie (RFC 6265bis §5.8.3 step 4).
    public var headerPair: String {
        name.isEmpty ? value : name + "=" + value
    }
}
