import Foundation
@_spi(KringleInternals) import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Why a transport made with `configuration` must refuse every request, or `nil`.
    ///
    /// FoundationNetworking (Linux) keeps a configuration's `connectionProxyDictionary` but
    /// never hands it to libcurl, so requests would go direct (or wherever the environment
    /// says) while the caller asked for a proxy. On Apple platforms URLSession applies it.
    static func proxyRefusal(for configuration: URLSessionConfiguration) -> String? {
        #if canImport(FoundationNetworking)
        guard let proxies = configuration.connectionProxyDictionary, !proxies.isEmpty else { return nil }
        return
            "URLSessionTransport on Linux cannot apply the session configuration's connectionProxyDictionary (FoundationNetworking ignores it); use CurlTransport with CurlTransport.Proxy.url(_:username:password:noProxy:), or the proxy environment variables."
        #else
        return nil
        #endif
    }
}
