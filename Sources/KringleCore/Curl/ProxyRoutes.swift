import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a transport's requests go, worked out once from its ``CurlTransport/Proxy`` when
/// the transport is made (the environment read then, never per request), and looked up for
/// each request by scheme, host and port.
struct ProxyRoutes: Sendable, Hashable {
    /// The way for one scheme.
    enum Route: Sendable, Hashable {
        /// No proxy: connect to the server.
        case direct
        /// Through this proxy.
        case proxy(ProxyServer)
        /// A proxy was asked for but cannot be used: requests fail with this reason rather
        /// than go out another way.
        case refused(String)
    }

    /// What curl is told for one request.
    enum Decision: Sendable, Hashable {
        /// Nothing: libcurl reads the environment itself (`Proxy.libcurlEnvironment`).
        case leftToLibcurl
        case route(Route)
    }

    /// Whether libcurl is left to read the environment with its own rules.
    let leftToLibcurl: Bool
    /// The way for `http` URLs.
    let http: Route
    /// The way for `https` URLs.
    let https: Route
    /// The hosts that go direct whatever the routes say.
    let noProxy: NoProxyList

    /// No proxy at all: every request direct.
    static let direct = ProxyRoutes(leftToLibcurl: false, http: .direct, https: .direct, noProxy: NoProxyList([]))

    private init(leftToLibcurl: Bool, http: Route, https: Route, noProxy: NoProxyList) {
        self.leftToLibcurl = leftToLibcurl
        self.http = http
        self.https = https
        self.noProxy = noProxy
    }

    /// The routes for `proxy`; the process's environment is read (nine `getenv` calls) only
    /// when `proxy` is ``CurlTransport/Proxy/environment``.
    init(_ proxy: CurlTransport.Proxy) {
        switch proxy.choice {
        case .environment(let variables?):
            self.init(environment: { variables[$0] })
        case .environment(nil):
            self.init(environment: { name in getenv(name).map { String(cString: $0) } })
        case .libcurlEnvironment:
            self.init(leftToLibcurl: true, http: .direct, https: .direct, noProxy: NoProxyList([]))
        case .direct:
            self = .direct
        case .server(let url, let username, let password, let noProxy):
            let route: Route
            do {
                route = .proxy(try ProxyServer(parsing: url, username: username, password: password))
            } catch {
                let shown = ProxyServer.redacted(url, username: username, hasPassword: password != nil)
                route = .refused("The proxy URL \(shown) \(error.reason).")
            }
            self.init(leftToLibcurl: false, http: route, https: route, noProxy: NoProxyList(noProxy))
        }
    }

    /// The routes the proxy environment variables describe, as ``CurlTransport/Proxy/environment``
    /// documents: a pure function of `variable`, which returns a variable's value or `nil`
    /// when it is not set.
    init(environment variable: (String) -> String?) {
        // httpoxy (CVE-2016-5385): under CGI the web server sets HTTP_PROXY from a request's
        // `Proxy:` header, so the upper-case spelling cannot be trusted there.
        let underCGI = variable("REQUEST_METHOD") != nil
        /// The lower-case variable when set (even empty), else the upper-case one; the name
        /// read and its value, `nil` when empty or unset.
        func read(_ lower: String, _ upper: String?) -> (name: String, value: String)? {
            let found: (String, String)? =
                if let value = variable(lower) {
                    (lower, value)
                } else if let upper, let value = variable(upper) {
                    (upper, value)
                } else {
                    nil
                }
            guard let found, !found.1.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            return found
        }
        func route(_ lower: String, _ upper: String?) -> Route {
            guard let (name, value) = read(lower, upper) ?? read("all_proxy", "ALL_PROXY") else { return .direct }
            do {
                return .proxy(try ProxyServer(parsing: value))
            } catch {
                let shown = ProxyServer.redacted(value, username: nil, hasPassword: false)
                return .refused("The environment variable \(name) (\(shown)) \(error.reason).")
            }
        }
        self.init(
            leftToLibcurl: false,
            http: route("http_proxy", underCGI ? nil : "HTTP_PROXY"),
            https: route("https_proxy", "HTTPS_PROXY"),
            noProxy: NoProxyList(read("no_proxy", "NO_PROXY")?.value ?? ""))
    }

    /// The way for a request to `url`.
    func decision(for url: URL, isHTTPS: Bool) -> Decision {
        decision(isHTTPS: isHTTPS, url: { url })
    }

    /// The way for a request to the URL `url` returns, called only when the no-proxy list
    /// has to be consulted (a transport's default route, direct, never reads the URL).
    func decision(isHTTPS: Bool, url makeURL: () -> URL) -> Decision {
        if leftToLibcurl { return .leftToLibcurl }
        let route = isHTTPS ? https : http
        if case .direct = route { return .route(.direct) }
        let url = makeURL()
        if !noProxy.isEmpty, let host = url.host {
            if noProxy.matches(host: host, port: url.port ?? (isHTTPS ? 443 : 80)) { return .route(.direct) }
        }
        return .route(route)
    }
}
