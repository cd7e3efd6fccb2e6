import Foundation

/// One `Set-Cookie` header after parsing (RFC 6265 §5.2), before the storage model
/// (§5.3) decides whether and how to keep it. For each attribute only the last valid
/// occurrence is kept, which is what the storage model consults.
struct ParsedSetCookie: Sendable, Equatable {
    /// The cookie name, trimmed; empty for a nameless cookie.
    var name: String
    /// The cookie value, trimmed, quotes kept.
    var value: String
    /// The last valid `Expires` (RFC 6265 §5.2.1), not yet capped.
    var expires: Date?
    /// The last valid `Max-Age` in seconds (RFC 6265 §5.2.2); it beats `Expires`.
    var maxAge: Int64?
    /// The last `Domain` (RFC 6265 §5.2.3), lowercased, without one leading dot.
    /// The empty string means the last `Domain` was empty: the cookie is host-only
    /// (RFC 6265bis; http-state `optional-domain0042`).
    var domain: String?
    /// The last `Path` (RFC 6265 §5.2.4). The empty string means it was empty or
    /// did not start with `/`, so the default-path applies.
    var path: String?
    /// Whether a `Secure` attribute was present (RFC 6265 §5.2.5).
    var secure = false
    /// Whether an `HttpOnly` attribute was present (RFC 6265 §5.2.6).
    var httpOnly = false
    /// The last `SameSite` value (RFC 6265bis §5.6.7).
    var sameSite: Cookie.SameSite = .unspecified
}
