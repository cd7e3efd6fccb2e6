import Foundation

/// Percent-encoding that never surprises: only RFC 3986 unreserved characters stay as
/// they are in query and form components, so `+`, `&`, `=` and spaces always arrive as
/// sent.
enum PercentEncoding {
    /// RFC 3986 §2.3 unreserved characters.
    private static let unreserved = CharacterSet(
        charactersIn:
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Characters a path segment may hold unencoded (RFC 3986 §3.3 pchar), minus `;`, `?`, `#`.
    private static let pathAllowed = unreserved.union(CharacterSet(charactersIn: "!$&'()*+,=:@/"))

    /// A query name or value.
    static func queryComponent(_ string: String) -> String {
        string.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// A form field name or value (`application/x-www-form-urlencoded`, spaces as `%20`,
    /// which every server decodes).
    static func formComponent(_ string: String) -> String {
        queryComponent(string)
    }

    /// An unencoded path, slashes kept.
    static func path(_ string: String) -> String {
        string.addingPercentEncoding(withAllowedCharacters: pathAllowed) ?? ""
    }
}
