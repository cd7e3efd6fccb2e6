/// Default paths and path matching (RFC 6265 §5.1.4). Paths are compared byte for
/// byte, exactly as they appear in the URL: percent-encoding is not decoded.
enum PathMatching {
    /// The default-path of a request URI path (RFC 6265 §5.1.4): the path up to, but
    /// not including, its right-most `/`; or `/` when the path is empty, does not
    /// start with `/`, or has no other `/`.
    ///
    /// - Parameter uriPath: The path of the URL that sent the cookie (still encoded).
    /// - Returns: The cookie path to use when `Path` is missing or invalid.
    static func defaultPath(_ uriPath: some StringProtocol) -> String {
        guard uriPath.hasPrefix("/"), let lastSlash = uriPath.lastIndex(of: "/"),
            lastSlash != uriPath.startIndex
        else { return "/" }
        return String(uriPath[..<lastSlash])
    }

    /// The path-match relation of RFC 6265 §5.1.4: the paths are identical, or the
    /// cookie path is a prefix of the request path and either ends with `/` or is
    /// followed in the request path by `/`.
    ///
    /// - Parameters:
    ///   - requestPath: The request URL's path (still encoded).
    ///   - cookiePath: The cookie's path.
    /// - Returns: Whether `requestPath` path-matches `cookiePath`.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        let request = requestPath.utf8, cookie = cookiePath.utf8
        guard request.starts(with: cookie) else { return false }
        if request.count == cookie.count || cookie.last == UInt8(ascii: "/") { return true }
        let next = request.index(request.startIndex, offsetBy: cookie.count)
        return request[next] == UInt8(ascii: "/")
    }
}
