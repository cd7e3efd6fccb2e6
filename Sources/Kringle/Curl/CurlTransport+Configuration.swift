import Foundation

extension CurlTransport {
    /// How a ``CurlTransport`` connects: connection limits, timeouts, proxy, TLS and HTTP
    /// version. Every transport has its own connection pool, so settings never leak from one
    /// transport to another.
    ///
    /// ```swift
    /// var configuration = CurlTransport.Configuration()
    /// configuration.maximumConnectionsPerHost = 8
    /// configuration.defaultTimeout = 15
    /// configuration.proxy = .url("http://proxy.internal:3128")
    /// let client = NetworkClient(transport: CurlTransport(configuration: configuration))
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// The most connections open at once across all hosts (`CURLMOPT_MAX_TOTAL_CONNECTIONS`);
        /// `nil` sets no limit. Transfers beyond the limit wait for a free connection.
        public var maximumConnections: Int?

        /// The most connections open at once to one host (`CURLMOPT_MAX_HOST_CONNECTIONS`);
        /// 6 by default, like URLSession and browsers; `nil` sets no limit.
        public var maximumConnectionsPerHost: Int?

        /// Seconds a request may take in total when its `timeoutInterval` is still
        /// URLRequest's default of 60; 60 by default. Zero or less means no limit.
        ///
        /// A request with any other `timeoutInterval` uses its own value, with millisecond
        /// precision (`CURLOPT_TIMEOUT_MS`).
        public var defaultTimeout: TimeInterval

        /// Which proxy to use; ``Proxy/environment`` by default.
        public var proxy: Proxy

        /// Whether TLS certificates and host names are verified (`CURLOPT_SSL_VERIFYPEER` and
        /// `CURLOPT_SSL_VERIFYHOST`); `true` by default. Turn off only for tests against
        /// self-signed servers.
        public var verifiesCertificates: Bool

        /// A PEM file of certificate authorities to trust instead of the system's
        /// (`CURLOPT_CAINFO`); `nil` uses libcurl's built-in default.
        public var certificateAuthorityFile: String?

        /// Which HTTP version to ask for; ``HTTPVersion/automatic`` by default.
        public var httpVersion: HTTPVersion

        /// Creates a configuration; every parameter has the default described on its property.
        public init(
            maximumConnections: Int? = nil,
            maximumConnectionsPerHost: Int? = 6,
            defaultTimeout: TimeInterval = 60,
            proxy: Proxy = .environment,
            verifiesCertificates: Bool = true,
            certificateAuthorityFile: String? = nil,
            httpVersion: HTTPVersion = .automatic
        ) {
            self.maximumConnections = maximumConnections
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.defaultTimeout = defaultTimeout
            self.proxy = proxy
            self.verifiesCertificates = verifiesCertificates
            self.certificateAuthorityFile = certificateAuthorityFile
            self.httpVersion = httpVersion
        }
    }

    /// Where requests go before they reach the server.
    public enum Proxy: Sendable, Hashable {
        /// Follow the `http_proxy` (lower case only), `https_proxy`, `all_proxy` and
        /// `no_proxy` environment variables, as the `curl` tool does. A proxy sees every
        /// plain-`http` request in full.
        case environment
        /// Connect to every server directly, whatever the environment says.
        case direct
        /// Send every request through this proxy, such as `"http://proxy.internal:3128"` or
        /// `"socks5h://127.0.0.1:1080"`; hosts listed in `no_proxy` still go direct.
        case url(String)
    }

    /// The HTTP version a transport asks for (`CURLOPT_HTTP_VERSION`).
    public enum HTTPVersion: Sendable, Hashable {
        /// libcurl's choice: HTTP/2 over TLS when the server offers it, HTTP/1.1 otherwise.
        case automatic
        /// HTTP/1.1 only.
        // swift-format-ignore: AlwaysUseLowerCamelCase
        // (Spelled as the protocol is: `http11` would read as a version eleven.)
        case http1_1
        /// HTTP/2 over TLS (negotiated with ALPN), HTTP/1.1 for plain `http://` URLs. With a
        /// libcurl built without HTTP/2, requests fail with a ``CurlError``.
        case http2
    }
}
