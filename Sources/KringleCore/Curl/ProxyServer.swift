import Foundation

/// A proxy as libcurl is handed it: the URL without user info (`CURLOPT_PROXY`) and the
/// credentials apart (`CURLOPT_PROXYUSERNAME`, `CURLOPT_PROXYPASSWORD`), so that no URL
/// curl keeps or reports carries them.
struct ProxyServer: Sendable, Hashable {
    /// The kinds ``CurlTransport/Proxy`` documents.
    enum Kind: String, Sendable, Hashable, CaseIterable {
        case http, https, socks5, socks5h
    }

    /// Why a proxy URL cannot be used: what is wrong with it, never its password.
    struct URLRejection: Error, Sendable, Hashable {
        let reason: String

        init(_ reason: String) {
            self.reason = reason
        }
    }

    let kind: Kind
    /// `scheme://host[:port]`, user info, path and query left out.
    let curlURL: String
    let username: String?
    let password: String?

    /// Reads `text` as a proxy URL; `username` and `password`, when given, replace the URL's.
    ///
    /// - Throws: a reason without the password when `text` is not a proxy URL Kringle can
    ///   use.
    init(parsing text: String, username: String? = nil, password: String? = nil) throws(URLRejection) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // `proxy.internal:3128` would parse as scheme `proxy.internal`: curl reads it as HTTP.
        let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
        guard let components = URLComponents(string: withScheme) else {
            throw URLRejection("is not a URL")
        }
        let scheme = components.scheme?.lowercased() ?? ""
        guard let kind = Kind(rawValue: scheme) else {
            throw URLRejection(
                "has the scheme \"\(scheme)\"; a proxy is http://, https://, socks5:// or socks5h://")
        }
        guard let host = components.percentEncodedHost.map(Self.bracketed), !host.isEmpty else {
            throw URLRejection("names no host")
        }
        self.kind = kind
        curlURL = "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
        self.username = username ?? components.user
        self.password = password ?? components.password
    }

    /// `url` as a description may show it: its password (or a user name alone, often a
    /// token) as `***`, like ``Redaction`` shows request URLs. Text that is not a URL is not
    /// shown at all.
    static func redacted(_ url: String, username: String?, hasPassword: Bool) -> String {
        let trimmed = url.trimmingCharacters(in: .whitespaces)
        let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
        guard var components = URLComponents(string: withScheme),
            let host = components.percentEncodedHost.map(bracketed)
        else { return "<a proxy URL that does not parse>" }
        let user = username ?? components.user
        let password = hasPassword || components.password != nil
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        let scheme = components.scheme ?? "http"
        let port = components.port.map { ":\($0)" } ?? ""
        switch (user, password) {
        case (let user?, true): return "\(scheme)://\(Self.encoded(user)):\(Redaction.placeholder)@\(host)\(port)"
        case (_?, false), (nil, true): return "\(scheme)://\(Redaction.placeholder)@\(host)\(port)"
        case (nil, false): return "\(scheme)://\(host)\(port)"
        }
    }

    /// An IPv6 address in the brackets a URL needs (RFC 3986 §3.2.2), whether or not
    /// URLComponents kept them.
    private static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    private static func encoded(_ user: String) -> String {
        user.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? Redaction.placeholder
    }
}
