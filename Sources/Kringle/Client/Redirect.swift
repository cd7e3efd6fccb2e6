import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One redirect hop the client follows itself (RFC 9110 §15.4): the next request and what
/// carries over to it. Every rule about what changes on a hop lives here.
struct Redirect {
    /// The request for the next hop.
    let request: URLRequest
    /// Whether the caller's own `Cookie` header goes along: only to the same origin. (The
    /// jar's cookies are chosen afresh for every hop.)
    let keepsUserCookie: Bool
    /// Whether a streamed body is sent again: only when the method stays (307, 308, or a
    /// 301/302 of anything but POST).
    let keepsBody: Bool

    /// The hop that follows `response`, or `nil` when it is not a redirect to follow.
    ///
    /// - 301 and 302 turn POST into GET without a body; 303 turns every method but HEAD
    ///   into GET without a body; 307 and 308 keep the method and the body.
    /// - A relative `Location` resolves against the URL that answered; only http and https
    ///   targets are followed.
    /// - `Authorization` and the caller's `Cookie` are dropped when the hop changes origin.
    init?(after response: HTTPResponse, to request: URLRequest) {
        guard [301, 302, 303, 307, 308].contains(response.statusCode),
            let location = response.headers["Location"],
            let target = URL(string: location, relativeTo: response.url)?.absoluteURL,
            target.scheme == "http" || target.scheme == "https"
        else { return nil }

        var next = request
        next.url = target
        let method = request.httpMethod ?? "GET"
        let becomesGet =
            (response.statusCode == 303 && method != "HEAD")
            || ([301, 302].contains(response.statusCode) && method == "POST")
        if becomesGet {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
            next.setValue(nil, forHTTPHeaderField: "Content-Length")
        }
        let sameOrigin = request.url.map { Self.sameOrigin($0, target) } ?? false
        if !sameOrigin {
            next.setValue(nil, forHTTPHeaderField: "Authorization")
        }
        self.request = next
        keepsUserCookie = sameOrigin
        keepsBody = !becomesGet
    }

    /// The transfer options for the next hop: the same, less a streamed body the hop drops.
    func carrying(_ options: TransferOptions) -> TransferOptions {
        var next = options
        if !keepsBody { next.body = nil }
        return next
    }

    /// RFC 6454 origin: scheme, host and port.
    static func sameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        lhs.scheme?.lowercased() == rhs.scheme?.lowercased()
            && lhs.host?.lowercased() == rhs.host?.lowercased()
            && effectivePort(lhs) == effectivePort(rhs)
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }
}
