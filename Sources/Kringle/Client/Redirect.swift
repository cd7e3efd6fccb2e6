import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client's own redirect rules (RFC 9110 §15.4), applied hop by hop.
enum Redirect {
    /// The request that follows `response`, or `nil` when it is not a redirect to follow.
    ///
    /// - 301 and 302 turn POST into GET without a body; 303 turns every method but HEAD
    ///   into GET without a body; 307 and 308 keep the method and the body.
    /// - A relative `Location` resolves against the URL that answered.
    /// - `Authorization` is dropped when the hop changes origin (the caller drops its own
    ///   `Cookie` header then too).
    static func request(after response: HTTPResponse, to request: URLRequest) -> URLRequest? {
        guard [301, 302, 303, 307, 308].contains(response.statusCode),
              let location = response.headers["Location"],
              let target = URL(string: location, relativeTo: response.url)?.absoluteURL,
              target.scheme == "http" || target.scheme == "https"
        else { return nil }

        var next = request
        next.url = target
        let method = request.httpMethod ?? "GET"
        let becomesGet = (response.statusCode == 303 && method != "HEAD")
            || ([301, 302].contains(response.statusCode) && method == "POST")
        if becomesGet {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
            next.setValue(nil, forHTTPHeaderField: "Content-Length")
        }
        if let from = request.url, !sameOrigin(from, target) {
            next.setValue(nil, forHTTPHeaderField: "Authorization")
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
