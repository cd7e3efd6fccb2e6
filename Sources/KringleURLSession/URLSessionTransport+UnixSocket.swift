import Foundation
@_spi(KringleInternals) import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// The rejection of a request to an `http+unix` or `https+unix` URL (``/KringleCore/UnixSocketURL``),
    /// or `nil` for any other URL.
    ///
    /// URLSession connects only over TCP (or QUIC) to a host it resolves: it has no way to
    /// reach a Unix socket, and would fail with an unsupported-URL error after the request
    /// was handed to it, or, given the URL rewritten to `localhost`, send it to whatever
    /// listens on port 80. So the request is refused here, before anything is sent, saying
    /// which transport can send it. The check reads the scheme's length first, so that an
    /// `http` or `https` URL costs next to nothing.
    static func unixSocketRefusal(_ url: URL?) -> Promise<HTTPResponse>? {
        guard let url, UnixSocketURL.isUnixSocket(url) else { return nil }
        return Promise(
            error: KringleError.unsupportedConfiguration(
                "URLSession cannot connect to a Unix domain socket (\(Redaction.default.redacting(url))); use CurlTransport for http+unix and https+unix URLs."
            ))
    }
}
