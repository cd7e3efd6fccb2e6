import Foundation

/// What a private cache may store (RFC 9111 §3) and what an unsafe request invalidates
/// (§4.4).
enum CacheStorability {
    /// The statuses RFC 9110 §15.1 defines as heuristically cacheable: stored without explicit
    /// freshness, and given a heuristic lifetime when they have a `Last-Modified`.
    static let heuristicallyCacheableStatuses: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Whether `response` to `request` may be stored (§3): a GET; a final status the cache
    /// understands, never 206 (this cache does not combine partial content) nor 304; no
    /// `no-store` in the request or the response; and something that makes it cacheable:
    /// `public`, `private` (this cache is private), `Expires`, `max-age`, or a heuristically
    /// cacheable status. `Authorization` does not prevent storing in a private cache
    /// (§3.5 is about shared ones). A `Vary: *` response could never be selected (§4.1), so
    /// it is not stored either.
    static func mayStore(_ response: HTTPResponse, for request: HTTPRequest) -> Bool {
        guard request.method == .get, (200..<600).contains(response.statusCode),
            response.statusCode != 206, response.statusCode != 304
        else { return false }
        let directives = CacheControl(response.headers)
        guard !directives.contains("no-store"), !requestDirectives(request).contains("no-store"),
            !CacheVary.names(in: response.headers).contains("*")
        else { return false }
        return directives.contains("public") || directives.contains("private") || directives.contains("max-age")
            || response.headers.contains("Expires") || heuristicallyCacheableStatuses.contains(response.statusCode)
    }

    /// Whether `response`, full and final, replaces what is stored for its request even when
    /// it may not be stored itself: not a 304 or 206 (about the stored response, or a part of
    /// it) nor a server error (the stored response may still be good, §4.3.3).
    static func replacesStored(_ response: HTTPResponse) -> Bool {
        response.statusCode != 304 && response.statusCode != 206 && response.statusCode < 500
    }

    /// The fields of a response as stored (§3.1): without the hop-by-hop fields
    /// (`Connection`, `Keep-Alive`, `Proxy-Connection`, `TE`, `Transfer-Encoding`,
    /// `Upgrade`) and the fields `Connection` names, which described one connection; and
    /// without `Set-Cookie`, whose cookies went to the jar when the response arrived: kept,
    /// a session cookie would outlive its session in a directory cache, and a hit would
    /// show cookies that are not the jar's.
    static func storedFields(of headers: HTTPHeaders) -> HTTPHeaders {
        let dropped = hopByHopFields.union(connectionOptions(in: headers)).union(["set-cookie"])
        guard headers.fields.contains(where: { dropped.contains($0.name.lowercased()) }) else { return headers }
        return HTTPHeaders(
            headers.fields.filter { !dropped.contains($0.name.lowercased()) }.map { ($0.name, $0.value) })
    }

    /// Lower-cased names of the hop-by-hop fields (RFC 9110 §7.6.1).
    static let hopByHopFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
    ]

    /// The fields a `Connection` line names: options of that one message (RFC 9110 §7.6.1).
    static func connectionOptions(in headers: HTTPHeaders) -> Set<String> {
        Set(headers.tokens(for: "Connection"))
    }

    /// The request's `Cache-Control` directives; a `Pragma: no-cache` counts as `no-cache`
    /// when there is no `Cache-Control` (RFC 9111 §5.4, kept for HTTP/1.0 clients).
    static func requestDirectives(_ request: HTTPRequest) -> CacheControl {
        if let value = request.headers.combinedValue(for: "Cache-Control") { return CacheControl(value) }
        if let pragma = request.headers.combinedValue(for: "Pragma"), CacheControl(pragma).contains("no-cache") {
            return CacheControl("no-cache")
        }
        return CacheControl("")
    }

    /// Whether `method` is unsafe (RFC 9110 §9.2.1): anything but GET, HEAD, OPTIONS and TRACE.
    static func isUnsafe(_ method: HTTPMethod) -> Bool {
        ![.get, .head, .options, "TRACE"].contains(method)
    }

    /// The URLs a non-error response to an unsafe request invalidates (§4.4): the target,
    /// and the `Location` and `Content-Location` it names on the same origin (another
    /// origin's entries are not this response's to judge).
    static func invalidatedURLs(by response: HTTPResponse, to request: HTTPRequest) -> [URL] {
        guard (200..<400).contains(response.statusCode) else { return [] }
        let target = request.url
        let named = ["Location", "Content-Location"].compactMap { name in
            response.headers[name].flatMap { URL(string: $0, relativeTo: response.url)?.absoluteURL }
        }
        return [target] + named.filter { Redirect.sameOrigin($0, target) }
    }
}
