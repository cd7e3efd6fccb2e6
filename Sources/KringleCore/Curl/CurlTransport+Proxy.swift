import Foundation

extension CurlTransport {
    /// Where requests go before they reach the server: straight there, through a proxy named
    /// by the environment (the default), or through a proxy you name.
    ///
    /// ```swift
    /// // Through a corporate proxy, with credentials, except for internal hosts:
    /// let proxy = CurlTransport.Proxy.url(
    ///     "http://proxy.internal:3128", username: "build", password: secret,
    ///     noProxy: ["localhost", ".internal", "10.0.0.0/8"])
    /// let client = NetworkClient(transport: CurlTransport(configuration: .init(proxy: proxy)))
    /// ```
    ///
    /// **Kinds of proxy**, by the URL's scheme:
    /// - `http://`: an HTTP proxy. An `http` URL is sent to it in full (absolute form, RFC
    ///   9112 §3.2.2), so the proxy sees the whole request; an `https` URL goes through a
    ///   `CONNECT` tunnel (RFC 9110 §9.3.6), and the proxy sees only the host and port.
    /// - `https://`: the same over TLS to the proxy itself, checked with the configuration's
    ///   certificate settings and ``Configuration/minimumTLSVersion``.
    /// - `socks5://`: SOCKS5 (RFC 1928), host names resolved on this machine.
    /// - `socks5h://`: SOCKS5 with host names resolved by the proxy ("remote DNS"), for names
    ///   only the proxy's network knows.
    ///
    /// A URL without a scheme (`proxy.internal:3128`) is an HTTP proxy, as curl and most tools
    /// read it. Any other scheme, or a URL without a host, makes every request that would use
    /// the proxy fail with `KringleError.unsupportedConfiguration` (nothing goes out direct
    /// instead).
    ///
    /// **Credentials** come from the URL's user info (`http://user:p%40ss@proxy:3128`,
    /// percent-decoded) or from `username` and `password`, which win. They are handed to
    /// libcurl apart from the URL (`CURLOPT_PROXYUSERNAME`, `CURLOPT_PROXYPASSWORD`): an HTTP
    /// proxy receives them as `Proxy-Authorization: Basic …` (RFC 9110 §11.7.2), a SOCKS5
    /// proxy as its username/password method (RFC 1929). They are never shown: a proxy's
    /// `description` (and so a printed or dumped ``Configuration``) replaces the password with
    /// `***`, the ``Redaction`` of log events hides `Proxy-Authorization`, and errors name the
    /// proxy without its user info.
    ///
    /// **No-proxy lists** (`noProxy`, and `no_proxy` for ``environment``) name the hosts
    /// reached directly. Kringle matches them itself, so the rules are the same on every
    /// libcurl version. Entries are separated by commas or white space, compared without
    /// regard to case:
    /// - `*` alone: every host.
    /// - `example.com`, `.example.com` and `*.example.com` all mean example.com and every
    ///   name under it (`api.example.com`), but not `notexample.com`. (curl reads all three
    ///   so; Go's `.example.com` leaves out example.com itself.)
    /// - An IP address (`192.168.1.10`, `::1` or `[::1]`) matches a URL whose host is that
    ///   address written as an address; `10.0.0.0/8` and `fd00::/8` match a range (CIDR).
    ///   Host names are not looked up to compare them with addresses.
    /// - A port after any of these (`example.com:8443`, `10.0.0.1:80`, `[::1]:8080`) limits
    ///   the entry to URLs on that port (the scheme's default port counts). libcurl's own
    ///   `no_proxy` reading ignores such entries; Go's honours them, as Kringle does.
    ///
    /// Loopback is not exempt unless listed (as with curl; Go always exempts it): list
    /// `localhost,127.0.0.1,::1` to keep local traffic off the proxy.
    public struct Proxy: Sendable, Hashable {
        /// What was chosen; resolved into routes once per transport (see `ProxyRoutes`).
        enum Choice: Sendable, Hashable {
            /// The process's environment (`nil`), or these variables in its place.
            case environment([String: String]?)
            /// Nothing set on curl: libcurl reads the environment with its own rules, as
            /// FoundationNetworking's URLSession does (for URLSessionTransport's own engine).
            case libcurlEnvironment
            case direct
            case server(url: String, username: String?, password: String?, noProxy: [String])
        }

        /// Which of the four ``Choice`` cases, apart from its values.
        enum Mode: UInt8, Sendable, Hashable {
            case environment, libcurlEnvironment, direct, server
        }

        /// The values of ``Choice/environment(_:)`` and ``Choice/server(url:username:password:noProxy:)``.
        final class Values: Sendable, Hashable {
            let variables: [String: String]?
            let url: String
            let username: String?
            let password: String?
            let noProxy: [String]

            init(
                variables: [String: String]? = nil, url: String = "", username: String? = nil,
                password: String? = nil, noProxy: [String] = []
            ) {
                self.variables = variables
                self.url = url
                self.username = username
                self.password = password
                self.noProxy = noProxy
            }

            static func == (left: Values, right: Values) -> Bool {
                left.variables == right.variables && left.url == right.url && left.username == right.username
                    && left.password == right.password && left.noProxy == right.noProxy
            }

            func hash(into hasher: inout Hasher) {
                hasher.combine(variables)
                hasher.combine(url)
                hasher.combine(username)
                hasher.combine(password)
                hasher.combine(noProxy)
            }
        }

        /// The choice as a mode and, for the two cases that carry values, a reference to them:
        /// a transport's ``Configuration`` is copied on every request, and a
        /// ``Choice`` stored inline made each request of the default path cost about 1,000
        /// instructions more (Scripts/speed-guard.sh); `nil` costs nothing to copy.
        let mode: Mode
        let values: Values?

        init(choice: Choice) {
            switch choice {
            case .environment(nil):
                (mode, values) = (.environment, nil)
            case .environment(let variables?):
                (mode, values) = (.environment, Values(variables: variables))
            case .libcurlEnvironment:
                (mode, values) = (.libcurlEnvironment, nil)
            case .direct:
                (mode, values) = (.direct, nil)
            case .server(let url, let username, let password, let noProxy):
                (mode, values) = (.server, Values(url: url, username: username, password: password, noProxy: noProxy))
            }
        }

        /// What was chosen.
        var choice: Choice {
            switch mode {
            case .environment: .environment(values?.variables)
            case .libcurlEnvironment: .libcurlEnvironment
            case .direct: .direct
            case .server:
                .server(
                    url: values?.url ?? "", username: values?.username, password: values?.password,
                    noProxy: values?.noProxy ?? [])
            }
        }

        /// Follows the proxy environment variables, read once when the transport is created
        /// (a later `setenv` does not change a transport already made; make a new one). Read
        /// per request, the environment would cost every request a few `getenv` scans and
        /// allow a variable to change under requests in flight.
        ///
        /// | for | variables, first set one wins |
        /// |---|---|
        /// | `http` URLs | `http_proxy`, `HTTP_PROXY`, then `all_proxy`, `ALL_PROXY` |
        /// | `https` URLs | `https_proxy`, `HTTPS_PROXY`, then `all_proxy`, `ALL_PROXY` |
        /// | hosts reached directly | `no_proxy`, `NO_PROXY` |
        ///
        /// - Lower case wins when both spellings are set, as with curl and Python (Go prefers
        ///   upper case). A lower-case variable set to the empty string hides its upper-case
        ///   twin: `http_proxy= ./script` ignores a system-wide `HTTP_PROXY`. An empty value
        ///   means "no proxy" for that scheme (`all_proxy` may still supply one).
        /// - **The CGI rule (httpoxy, CVE-2016-5385):** when `REQUEST_METHOD` is set, as it is
        ///   for a program a web server runs through CGI, upper-case `HTTP_PROXY` is ignored,
        ///   because the web server puts a request's `Proxy:` header there. Lower-case
        ///   `http_proxy` is still read (a request header cannot set it). curl never reads
        ///   `HTTP_PROXY`; Python drops it under CGI too; Go ignores both spellings under CGI.
        /// - The values are read as ``url(_:username:password:noProxy:)`` reads its
        ///   arguments; `no_proxy` as its `noProxy` list.
        ///
        /// A variable holding something that is not a proxy URL (say `ftp://x`) fails the
        /// requests that would use it with `KringleError.unsupportedConfiguration`, naming the
        /// variable; it never quietly sends them direct.
        public static let environment = Proxy(choice: .environment(nil))

        /// Follows `variables` as ``environment`` follows the process's environment: for a
        /// program that keeps proxy settings in its own configuration, or a test.
        ///
        /// ```swift
        /// let proxy = CurlTransport.Proxy.environment(["https_proxy": "http://proxy.internal:3128"])
        /// ```
        public static func environment(_ variables: [String: String]) -> Proxy {
            Proxy(choice: .environment(variables))
        }

        /// Connects to every server directly, whatever the environment says.
        public static let direct = Proxy(choice: .direct)

        /// Sends every request (`http` and `https`) through the proxy at `url`, except to the
        /// hosts `noProxy` lists; the environment is not read.
        ///
        /// - Parameters:
        ///   - url: such as `"http://proxy.internal:3128"`, `"https://proxy.internal"`,
        ///     `"socks5h://127.0.0.1:1080"`; see ``Proxy`` for the schemes. Without a port,
        ///     libcurl's default for the kind applies (1080, 443 for `https`).
        ///   - username: the proxy user, in place of one in `url`.
        ///   - password: the proxy password, in place of one in `url`.
        ///   - noProxy: the hosts reached directly (see ``Proxy`` for the entries). Empty by
        ///     default.
        public static func url(
            _ url: String, username: String? = nil, password: String? = nil, noProxy: [String] = []
        ) -> Proxy {
            Proxy(choice: .server(url: url, username: username, password: password, noProxy: noProxy))
        }

        /// For URLSessionTransport's own engine on Linux: what FoundationNetworking does.
        package static let libcurlEnvironment = Proxy(choice: .libcurlEnvironment)
    }
}

extension CurlTransport.Proxy: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What the proxy is, without secrets: `environment`, `direct`, or the URL with its
    /// password (or a user name alone) as `***`, followed by the no-proxy list.
    public var description: String {
        switch choice {
        case .environment(nil): "environment"
        case .environment(_?): "environment (given variables)"
        case .libcurlEnvironment: "environment (read by libcurl)"
        case .direct: "direct"
        case .server(let url, let username, let password, let noProxy):
            ProxyServer.redacted(url, username: username, hasPassword: password != nil)
                + (noProxy.isEmpty ? "" : " (no proxy for \(noProxy.joined(separator: ",")))")
        }
    }

    /// The same as ``description``, so that `debugPrint` and a printed ``Configuration``
    /// show no secret either.
    public var debugDescription: String { description }

    /// The description alone, so that `dump` shows no secret either.
    public var customMirror: Mirror {
        Mirror(self, children: ["proxy": description])
    }
}
