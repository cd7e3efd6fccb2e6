// `import Kringle` is the one import an app, a server or a script needs: the client and the
// libcurl transport (KringleCore), promises (KringlePromise, which KringleCore re-exports), and
// on Apple platforms the URLSession adapter, the default transport there. On Linux the
// URLSession adapter is a module of its own (`import KringleURLSession`), so that a process
// that does not use it never loads FoundationNetworking. (An `@_exported import` declares no
// type, so these live in the file of the module's one extension.)
@_exported import KringleCore

#if canImport(Darwin)
@_exported import KringleURLSession
#endif

extension NetworkClient {
    /// A new instance of the transport that `NetworkClient()` uses: the best engine of this
    /// platform.
    ///
    /// - On Apple platforms, `URLSessionTransport`: URLSession is the system's own HTTP
    ///   stack there.
    /// - Elsewhere (Linux), ``/KringleCore/CurlTransport``, which loads libcurl as it starts; where libcurl
    ///   cannot be loaded, it fails every request with `KringleError.transport`, carrying a
    ///   ``/KringleCore/CurlError`` that says why.
    ///   FoundationNetworking's URLSession ends the process on a chunked response with
    ///   trailer fields (RFC 9112 §7.1.2), rejects status lines without a reason phrase, joins
    ///   repeated headers, rounds timeouts to whole seconds and uploads several times slower;
    ///   libcurl does none of that. (FoundationNetworking is built on libcurl too.)
    ///
    /// Each call makes a transport of its own, with its own connections. To choose the
    /// engine yourself, pass it:
    ///
    /// ```swift
    /// let curlClient = NetworkClient(transport: CurlTransport())
    /// print(type(of: NetworkClient.makeDefaultTransport()))  // CurlTransport on Linux
    /// ```
    public static func makeDefaultTransport() -> any Transport {
        #if canImport(Darwin)
        // No reason to load libcurl into the process.
        return URLSessionTransport()
        #else
        return CurlTransport()
        #endif
    }

    /// Creates a client that reaches the network through a new ``makeDefaultTransport()``.
    ///
    /// - Parameter configuration: Defaults, decoding, status validation, redirects, timeout,
    ///   cookies.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, transport: Self.makeDefaultTransport())
    }
}
