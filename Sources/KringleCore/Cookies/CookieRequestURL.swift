import Foundation

/// What the cookie algorithms need from a request or response URL: the canonical
/// host, the still-encoded path, and whether the scheme is secure.
struct CookieRequestURL: Sendable, Equatable {
    /// Schemes whose connections are encrypted, so `Secure` cookies may travel on them.
    static let secureSchemes: Set<String> = ["https", "wss", UnixSocketURL.tlsScheme]

    /// The canonicalized host (RFC 6265 §5.1.2).
    let host: String
    /// The URL's path, percent-encoding intact; `/` when the URL has none.
    let path: String
    /// Whether the scheme denotes a "secure" protocol (RFC 6265 §5.4 step 1).
    let isSecure: Bool
    /// Whether ``host`` is an IP address literal; such hosts never domain-match.
    let hostIsIPAddress: Bool

    /// Extracts the parts of a URL; `nil` when the URL has no usable host
    /// (for example a `file:` URL), in which case no cookie is stored or sent.
    ///
    /// - Parameter url: The request or response URL.
    init?(_ url: URL) {
        if let socket = UnixSocketURL(url) {
            // Unix domain sockets (issue 32): the host is the socket's path, in the one
            // spelling the URL form gives it (`%2fvar%2frun%2fdocker.sock`), in lower case
            // as every host here is; a path is no domain name for Punycode to convert.
            self.host = socket.encodedHost.lowercased()
        } else {
            guard let rawHost = url.host(percentEncoded: false),
                let host = DomainMatching.canonicalHost(rawHost)
            else { return nil }
            self.host = host
        }
        let path = url.path(percentEncoded: true)
        self.path = path.isEmpty ? "/" : path
        self.isSecure = Self.secureSchemes.contains(url.scheme?.lowercased() ?? "")
        self.hostIsIPAddress = DomainMatching.isIPAddress(host)
    }
}
