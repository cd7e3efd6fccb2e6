import Foundation

extension NetworkClient {
    /// A new instance of the transport that `NetworkClient()` uses: the best engine of this
    /// platform.
    ///
    /// - On Apple platforms, ``URLSessionTransport``: URLSession is the system's own HTTP
    ///   stack there.
    /// - Elsewhere (Linux), ``CurlTransport`` when libcurl can be loaded, and
    ///   ``URLSessionTransport`` when it cannot. FoundationNetworking's URLSession ends the
    ///   process on a chunked response with trailer fields (RFC 9112 §7.1.2), rejects status
    ///   lines without a reason phrase, joins repeated headers, rounds timeouts to whole
    ///   seconds and uploads several times slower; libcurl does none of that.
    ///
    /// Each call makes a transport of its own, with its own connections. To choose the
    /// engine yourself, pass it:
    ///
    /// ```swift
    /// let systemStackClient = NetworkClient(transport: URLSessionTransport())
    /// print(type(of: NetworkClient.makeDefaultTransport()))  // CurlTransport on Linux
    /// ```
    public static func makeDefaultTransport() -> any Transport {
        #if canImport(Darwin)
        // No reason to load libcurl into the process.
        return URLSessionTransport()
        #else
        return makeDefaultTransport(libcurl: CurlLibrary.load())
        #endif
    }

    /// The default transport, as if loading libcurl had given `libcurl`; tests use it to see
    /// the fallback on a machine without libcurl.
    static func makeDefaultTransport(libcurl: Result<Void, CurlError>) -> any Transport {
        #if canImport(Darwin)
        return URLSessionTransport()
        #else
        switch libcurl {
        case .success: return CurlTransport(configuration: CurlTransport.Configuration(), library: libcurl)
        case .failure: return URLSessionTransport()
        }
        #endif
    }
}
