import Kringle

/// A client on a fresh `CurlTransport` whose configuration `configure` adjusts.
func curlClient(_ configure: (inout CurlTransport.Configuration) -> Void) -> NetworkClient {
    var configuration = CurlTransport.Configuration()
    configure(&configuration)
    return NetworkClient(transport: CurlTransport(configuration: configuration))
}
