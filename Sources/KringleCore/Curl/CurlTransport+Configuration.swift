import Foundation

extension CurlTransport {
    /// How a ``CurlTransport`` connects: connection limits, connection reuse, proxy, TLS and
    /// HTTP version. Every transport has its own connection pool, so settings never leak from
    /// one transport to another.
    ///
    /// Time limits are not here: a request's own ``HTTPRequest/timeout`` limits it, which a
    /// ``NetworkClient`` sets from its one
    /// ``NetworkClient/Configuration-swift.struct/timeout``.
    ///
    /// ```swift
    /// var configuration = CurlTransport.Configuration()
    /// configuration.maximumConnectionsPerHost = 8
    /// configuration.proxy = .url("http://proxy.internal:3128")
    /// let client = NetworkClient(transport: CurlTransport(configuration: configuration))
    /// ```
    ///
    /// ## Rotating certificates
    ///
    /// A running transport sees a change of trust within ``maximumConnectionLifetime`` (5
    /// minutes by default), without a restart:
    ///
    /// - Every new connection reads ``certificateAuthorityFile`` as it is when it connects:
    ///   a CA added to the file is trusted, and one removed refused, from the next connection
    ///   on (libcurl's cache of the file, 24 hours by default since 7.87, is off).
    /// - When the transport sets its own trust (a CA file, CA data or pins), every new
    ///   connection makes a full TLS handshake: no session is resumed, since a resumed one
    ///   keeps the certificate of the handshake that made it (RFC 8446 §2.2). So a server's
    ///   new certificate is verified, and its key checked against ``pinnedPublicKeys``, by the
    ///   next connection to it.
    /// - A connection already open keeps the handshake it made, and takes no new request
    ///   once it is ``maximumConnectionLifetime`` old; a request in progress is never cut.
    /// - Pins and CA data belong to a transport: to change them, make a new transport, which
    ///   starts with no connections.
    ///
    /// The system's authorities, used when neither a file nor data is set, are libcurl's
    /// to read: a libcurl built with a CA directory (Debian's and Ubuntu's) reads them for
    /// every connection, another one from 7.87 on may keep them for 24 hours
    /// (`CURLOPT_CA_CACHE_TIMEOUT`); make a new transport to read them again at once.
    public struct Configuration: Sendable, Hashable {
        /// The most requests in progress at once across all hosts; 64 by default, which
        /// also bounds the idle connections kept for reuse (`CURLMOPT_MAXCONNECTS`), so that
        /// open descriptors stay bounded however many hosts a client talks to. `nil` sets
        /// no limit on requests (and keeps 64 idle connections).
        ///
        /// Requests beyond a limit (this one or ``maximumConnectionsPerHost``) wait in the
        /// transport's own queue, first in, first out, each holding only its request and
        /// its promise (no curl handle, buffer or connection), and start as requests in
        /// progress end. A waiting request's time limit runs while it waits: it rejects
        /// with `KringleError.timedOut` at its deadline, and cancelling it takes it out of
        /// the queue. When this limit is what holds requests back, hosts take turns.
        public var maximumConnections: Int?

        /// The most requests in progress at once to one host (scheme, host and port); 6 by
        /// default, like browsers and URLSession on Apple platforms; `nil` sets no limit.
        ///
        /// Over HTTP/1.1 each request in progress has a connection of its own, so this is
        /// also the most connections to the host. Over HTTP/2 the requests share one
        /// connection as streams, and this still caps how many run at once. Requests beyond
        /// it wait as ``maximumConnections`` describes.
        ///
        /// For comparison: URLSession queues requests beyond its
        /// `httpMaximumConnectionsPerHost` too (6 on Apple platforms; `URLSessionTransport`
        /// sets 4 on Linux), and `NetworkClient`'s timer bounds them while they wait there.
        /// AsyncHTTPClient opens up to 8 HTTP/1.1 connections per host by default and queues
        /// the rest, failing one whose deadline passes while it waits, as this transport does.
        public var maximumConnectionsPerHost: Int?

        /// The most idle connections kept open for reuse, across all hosts
        /// (`CURLMOPT_MAXCONNECTS`); `nil` (the default) keeps as many as
        /// ``maximumConnections`` allows, or 64 when that is `nil`. When a request ends and
        /// the pool is full, the connection idle the longest is closed. Zero keeps none:
        /// every request opens a connection of its own and closes it when done (so HTTP/2
        /// requests are not multiplexed either).
        public var maximumIdleConnections: Int?

        /// Seconds an idle connection is kept for reuse (`CURLOPT_MAXAGE_CONN`); 118 by
        /// default (libcurl's own). A request that finds only older idle connections closes
        /// them and opens a new one. Keep it below the servers' keep-alive timeout (nginx's
        /// is 75 s, Node's 5 s): a server closing an idle connection just as a request goes
        /// out on it is what ``RetryPolicy`` retries as a lost response. Whole seconds,
        /// rounded up.
        public var idleConnectionTimeout: TimeInterval

        /// Seconds a connection is used for new requests at all, idle or not, from when it
        /// was opened (`CURLOPT_MAXLIFETIME_CONN`, libcurl 7.80 or later; an older one
        /// ignores it); 300 (5 minutes) by default; `nil` sets no limit.
        ///
        /// A busy connection is otherwise never closed, and keeps what it had when it
        /// opened: the TLS handshake, so it would never see a rotated certificate, key or CA
        /// (see "Rotating certificates" in ``CurlTransport/Configuration-swift.struct``),
        /// and the server it reached, so load would never spread again after a fleet behind
        /// one name changes (blue/green deployments, DNS rotation). Reconnecting every 5
        /// minutes costs one handshake per connection.
        ///
        /// A request in progress (a long download, an event stream) is never cut: the limit
        /// is checked when a request looks for a connection, and libcurl checks it only on a
        /// connection with no request on it, so an HTTP/2 connection that always carries one
        /// keeps taking more. Whole seconds, rounded up; libcurl retires a connection once it
        /// is more than that many whole seconds old.
        public var maximumConnectionLifetime: TimeInterval?

        /// Addresses to connect to instead of what DNS says, for a host and port
        /// (`CURLOPT_RESOLVE`, curl's `--resolve`); none by default. The URL, the `Host`
        /// field, TLS's server name and certificate check, cookies and the cache still see
        /// the host name: only the address changes. See ``DNSOverride``.
        public var dnsOverrides: [DNSOverride]

        /// Which IP versions to connect over (`CURLOPT_IPRESOLVE`); ``IPVersion/any`` by
        /// default.
        public var ipVersion: IPVersion

        /// Which proxy to use; ``Proxy/environment`` by default (the proxy environment
        /// variables, read once when the transport is created). See ``Proxy``.
        public var proxy: Proxy

        /// Whether TLS certificates and host names are verified (`CURLOPT_SSL_VERIFYPEER` and
        /// `CURLOPT_SSL_VERIFYHOST`); `true` by default.
        ///
        /// **Dangerous when `false`:** the transport then talks to anyone who answers on the
        /// network path, an attacker included, and sends them every header, cookie and body;
        /// HTTPS without verification protects nothing. To reach a server with a private or
        /// test CA, trust that CA instead (``certificateAuthorityFile`` or
        /// ``certificateAuthorityPEM``); for a server you know by its key, pin it
        /// (``pinnedPublicKeys``, which is checked even when this is `false`).
        public var verifiesCertificates: Bool

        /// A PEM file of certificate authorities to trust instead of the system's
        /// (`CURLOPT_CAINFO`, with libcurl's CA directory cleared); `nil` uses libcurl's
        /// built-in default.
        ///
        /// Every new connection reads the file as it is then, so replacing it rotates the
        /// trusted authorities without a restart (see "Rotating certificates" in
        /// ``CurlTransport/Configuration-swift.struct``). Each read parses the whole file:
        /// a few authorities cost well under a millisecond, a copy of a system bundle (some
        /// 140) tens of milliseconds per new connection with OpenSSL 3. Replace the file in
        /// one step (write another, then rename it over this one), so that no connection
        /// reads it half written.
        public var certificateAuthorityFile: String?

        /// Certificate authorities to trust, as PEM data in memory (`CURLOPT_CAINFO_BLOB`,
        /// libcurl 7.77 or later; an older library rejects every request with
        /// ``TLSFailure/unsupportedConfiguration``); `nil` by default. Like
        /// ``certificateAuthorityFile`` it replaces the system's authorities. Set one of the
        /// two: libcurl would silently use only the data, so with both set every request is
        /// rejected with `KringleError.invalidRequest`. Data holding no certificate fails
        /// each request with ``TLSFailure/certificateAuthoritiesUnusable``. Every new
        /// connection verifies the server with it afresh, resuming no TLS session.
        public var certificateAuthorityPEM: Data?

        /// The server keys to accept (`CURLOPT_PINNEDPUBLICKEY`); empty by default, which
        /// pins nothing. When not empty, a server whose public key is none of these is
        /// refused with ``TLSFailure/pinMismatch``, after (not instead of) the usual
        /// certificate verification. Every new connection checks the key the server
        /// presents then, resuming no TLS session; pin the next key beside the current one
        /// before the server rotates to it. See ``PublicKeyPin`` for how to compute one.
        public var pinnedPublicKeys: [PublicKeyPin]

        /// The certificate to present to servers that ask for one (mutual TLS); `nil` by
        /// default.
        public var clientCertificate: ClientCertificate?

        /// The lowest TLS version to accept; ``TLSVersion/tls1_2`` by default. A server
        /// that offers only older versions is refused with
        /// ``TLSFailure/protocolVersionRefused``.
        public var minimumTLSVersion: TLSVersion

        /// Which HTTP version to ask for; ``HTTPVersion/automatic`` by default.
        public var httpVersion: HTTPVersion

        /// Creates a configuration; every parameter has the default described on its property.
        public init(
            maximumConnections: Int? = 64,
            maximumConnectionsPerHost: Int? = 6,
            proxy: Proxy = .environment,
            verifiesCertificates: Bool = true,
            certificateAuthorityFile: String? = nil,
            certificateAuthorityPEM: Data? = nil,
            pinnedPublicKeys: [PublicKeyPin] = [],
            clientCertificate: ClientCertificate? = nil,
            minimumTLSVersion: TLSVersion = .tls1_2,
            httpVersion: HTTPVersion = .automatic,
            maximumIdleConnections: Int? = nil,
            idleConnectionTimeout: TimeInterval = 118,
            maximumConnectionLifetime: TimeInterval? = 300,
            dnsOverrides: [DNSOverride] = [],
            ipVersion: IPVersion = .any
        ) {
            self.maximumConnections = maximumConnections
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.proxy = proxy
            self.verifiesCertificates = verifiesCertificates
            self.certificateAuthorityFile = certificateAuthorityFile
            self.certificateAuthorityPEM = certificateAuthorityPEM
            self.pinnedPublicKeys = pinnedPublicKeys
            self.clientCertificate = clientCertificate
            self.minimumTLSVersion = minimumTLSVersion
            self.httpVersion = httpVersion
            self.maximumIdleConnections = maximumIdleConnections
            self.idleConnectionTimeout = idleConnectionTimeout
            self.maximumConnectionLifetime = maximumConnectionLifetime
            self.dnsOverrides = dnsOverrides
            self.ipVersion = ipVersion
        }
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
        /// HTTP/2 from the first byte for plain `http://` URLs too, without asking first
        /// (`h2c` with prior knowledge, RFC 9113 §3.3); over TLS as ``http2``. For internal
        /// services that speak HTTP/2 without TLS (gRPC backends, service meshes). A server
        /// that only speaks HTTP/1.1 cannot answer it: the request fails with a
        /// ``CurlError``. The upgrade from HTTP/1.1 (`Upgrade: h2c`) is deprecated by
        /// RFC 9113 and not offered.
        ///
        /// Each plain request has a connection of its own, closed after it: libcurl 7.88
        /// fails a second request on a plain HTTP/2 connection, after or beside the first
        /// (its own command line does too), so requests are not multiplexed over h2c.
        case http2PriorKnowledge
    }
}
