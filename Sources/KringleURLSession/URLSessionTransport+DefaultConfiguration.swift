import Foundation
@_spi(KringleInternals) import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// The session configuration a transport starts from when it is given none: a new
    /// `.ephemeral` configuration each time, which on Linux opens at most 4 connections to one
    /// host (`httpMaximumConnectionsPerHost`; FoundationNetworking's default is 6).
    ///
    /// On Linux, URLSession keeps at most four open connections for each transfer it is
    /// running, and closes the oldest idle one beyond that: with 6 connections to one host,
    /// each moment at which only one transfer runs closes two, and the next requests open them
    /// again. With 4 none is ever closed for want of room.
    ///
    /// Start from it to change something else and keep connections reused:
    ///
    /// ```swift
    /// let configuration = URLSessionTransport.defaultConfiguration
    /// configuration.httpAdditionalHeaders = ["X-Client": "reports"]
    /// let client = NetworkClient(transport: URLSessionTransport(configuration: configuration))
    /// ```
    public static var defaultConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        #if canImport(FoundationNetworking)
        configuration.httpMaximumConnectionsPerHost = linuxConnectionsPerHost
        #endif
        return configuration
    }

    /// The connections to one host that `defaultConfiguration` allows on Linux.
    ///
    /// FoundationNetworking runs its transfers on libcurl and leaves the size of curl's
    /// connection pool (`CURLMOPT_MAXCONNECTS`) unset. curl then sizes the pool at four
    /// connections per transfer running, and whenever a finished transfer leaves more
    /// connections than that, it closes the oldest idle one. With 6 connections to a host, every
    /// moment at which only one transfer runs (a lull between waves, 8 threads each waiting for
    /// its own request) closes two, and the next wave opens them again: 200 new connections
    /// per 2,000 requests with 8 in flight from blocked threads, on Swift 6.3 with curl 7.88.
    /// At 4, the pool's smallest size while any transfer runs (curl 7.88's
    /// `Curl_conncache_return_conn`; current curl's `Curl_cpool_conn_now_idle` sizes it the
    /// same way), no connection is ever closed for room, and the same run opened none, no
    /// slower (`kringle-benchmarks overhead`). Requests beyond 4 to one host wait in curl's queue
    /// for a free connection, as they wait beyond 6 otherwise.
    static let linuxConnectionsPerHost = 4
}
