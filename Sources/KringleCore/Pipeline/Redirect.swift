import Foundation

/// One redirect hop the client follows itself (RFC 9110 §15.4): the next request and what
/// carries over to it.
///
/// Not every redirect rule is here. This type says which responses are redirects to follow
/// (the status, a `Location` with an http, https or same-socket target, Redirect+UnixSocket.swift)
/// and what changes on the hop (method, body, fields, the caller's cookie). Whether the hop
/// is then taken, against the client's `maximumRedirects` and
/// `allowsRedirectsFromHTTPSToHTTP`, is decided in Hop.swift, by `NetworkClient.Hop`'s
/// `next(after:from:)`, which asks ``isDowngrade(from:to:)`` here.
struct Redirect {
    /// The request for the next hop.
    let request: HTTPRequest
    /// Whether the caller's own `Cookie` header goes along: only to the same origin. (The
    /// jar's cookies are chosen afresh for every hop.)
    let keepsUserCookie: Bool
    /// Whether a streamed body is sent again: only when the method stays (307, 308, or a
    /// 301/302 of anything but POST).
    let keepsBody: Bool

    /// The hop that follows `response`, or `nil` when it is not a redirect to follow.
    ///
    /// - 301 and 302 turn POST into GET without a body; 303 turns every method but HEAD
    ///   into GET without a body; either drops the fields that described the body
    ///   (``contentHeaders``); 307 and 308 keep the method and the body.
    /// - A relative `Location` resolves against the URL that answered; only http and https
    ///   targets are followed, with scheme and host in lower case
    ///   (`URL.withLowercaseSchemeAndHost()`), and Unix socket targets from the same socket
    ///   (``followingUnixSocket(_:from:)``).
    /// - `Authorization`, `Proxy-Authorization`, the `credentialHeaders` and the caller's
    ///   `Cookie` are dropped when the hop changes origin.
    /// - Whether an HTTPS to HTTP hop may be followed is the client's decision
    ///   (``isDowngrade(from:to:)``).
    /// - Parameter credentialHeaders: The headers marked as credentials, asked for only when
    ///   the hop changes origin.
    /// - Throws: `KringleError.insecureRedirect` for a hop onto a Unix socket that
    ///   ``followingUnixSocket(_:from:)`` refuses: the caller learns why the redirect was not
    ///   followed, rather than get the 3xx as an unacceptable status.
    init?(
        after response: HTTPResponse, to request: HTTPRequest, credentialHeaders: () -> Set<String> = { [] }
    ) throws(KringleError) {
        // A switch, not a search of an array: every response passes here.
        switch response.statusCode {
        case 301, 302, 303, 307, 308: break
        default: return nil
        }
        guard let location = response.headers["Location"],
            let resolved = URL(string: location, relativeTo: response.url)?.absoluteURL
        else { return nil }
        // Unix domain sockets (issue 32): Redirect+UnixSocket.swift.
        guard let target = Self.followingUnixSocket(resolved, from: response.url) else {
            throw .insecureRedirect(from: response.url, to: resolved)
        }
        // RFC 3986 §3.1: case-insensitive. Another scheme (an app's own `myapp://`, say) is
        // not followed: the 3xx is the caller's to read.
        guard let scheme = target.scheme?.lowercased(),
            scheme == "http" || scheme == "https" || UnixSocketURL.isUnixSocket(target)
        else { return nil }

        var next = request
        next.url = target.withLowercaseSchemeAndHost()
        let method = request.method
        let becomesGet =
            (response.statusCode == 303 && method != .head)
            || ([301, 302].contains(response.statusCode) && method == .post)
        if becomesGet {
            next.method = .get
            next.body = nil
            for name in Self.contentHeaders {
                next.headers[name] = nil
            }
        }
        let sameOrigin = Self.sameOrigin(request.url, target)
        if !sameOrigin {
            // Credentials are for the origin they were given to (RFC 9110 §15.4: a user
            // agent should not forward them to another). `Cookie` is rebuilt from the jar on
            // every hop.
            for name in credentialHeaders().union(Self.alwaysDroppedAcrossOrigins) {
                next.headers[name] = nil
            }
        }
        self.request = next
        keepsUserCookie = sameOrigin
        keepsBody = !becomesGet
    }

    /// The fields that describe the body, removed with it when a redirect turns the request
    /// into a GET (RFC 9110 §15.4): a GET without a body must not claim a coding, a type or
    /// a length for one.
    static let contentHeaders = [
        "Content-Encoding", "Content-Language", "Content-Location", "Content-Type", "Content-Length", "Digest",
        "Last-Modified", "Transfer-Encoding",
    ]

    /// The credentials every request may carry, dropped on a hop to another origin.
    static let alwaysDroppedAcrossOrigins: Set<String> = ["Authorization", "Proxy-Authorization"]

    /// Whether the hop leaves HTTPS for plain HTTP, where anyone on the path can read and
    /// change the request and its answer.
    static func isDowngrade(from source: URL, to target: URL) -> Bool {
        // https+unix counts as https (issue 32).
        isSecure(source) && target.scheme?.lowercased() == "http"
    }

    /// The transfer options for the next hop: the same, less a body the hop drops (streamed,
    /// or compressed in memory, whose sizes the log would otherwise report again).
    func carrying(_ options: TransferOptions) -> TransferOptions {
        var next = options
        if !keepsBody {
            next.body = nil
            next.compressedFrom = nil
        }
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
