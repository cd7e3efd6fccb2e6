import CCurlShim
import Foundation

// What a failed curl transfer rejects with: the one ``KringleError`` a caller sees for a
// fault whichever transport ran (URLSessionTransport+Errors.swift is the other side), and
// one that says what happened rather than curl's code alone.

extension CurlTransfer {
    /// The error for a transfer that curl ended with `error`, once the transfer's own
    /// failures (a callback's, a limit crossed, a malformed head) are ruled out.
    ///
    /// | fault | curl | rejects with |
    /// |---|---|---|
    /// | a TLS handshake failed | 35, 58, 60, 90… | `tls` |
    /// | a proxy refused the `CONNECT` tunnel (407: credentials) | 56 | `proxyRefused` |
    /// | the body does not decode as its `Content-Encoding` says | 61 | `invalidResponse` |
    /// | a Unix socket that is missing or that nothing listens on | 7 | `transport`, naming the socket |
    /// | h2c to a server that closed on HTTP/2's preface | 52 | `unsupportedConfiguration` |
    /// | the connection closed or broke after the head | 18, 16, 55, 56, 92 | `incompleteResponse` |
    /// | anything else | | `transport` |
    func failure(for error: CurlError) -> any Error {
        let url = submission.plan.requestURL
        if let failure = error.tlsFailure {
            return KringleError.tls(url, failure, underlying: error)
        }
        // CURLINFO_HTTP_CONNECTCODE: the proxy's answer to CONNECT, set when it refused.
        let connectCode = easy.proxyConnectCode
        if connectCode >= 300 {
            return KringleError.proxyRefused(url, proxy: proxy.flatMap { URL(string: $0.curlURL) }, status: connectCode)
        }
        switch Int32(error.code) {
        case Int32(KCURLE_BAD_CONTENT_ENCODING):
            // The head arrived and named a coding the body does not follow: not a body cut
            // short (a retry would get the same bytes) nor a failure to reach the server.
            let coding = collector.headers["Content-Encoding"] ?? "its Content-Encoding"
            return KringleError.invalidResponse(
                Response(head), reason: "the body does not decode as \(coding) (\(error.message))")
        case Int32(KCURLE_COULDNT_CONNECT):
            guard let socketPath = submission.plan.unixSocketPath else { break }
            // curl names the `localhost` URL it was given, port 80 included.
            return KringleError.transport(
                CurlError(
                    code: error.code, message: Self.unixSocketFailure(socketPath, url: url, errno: easy.connectErrno)))
        case Int32(KCURLE_GOT_NOTHING) where asksHTTP2PriorKnowledge:
            // An HTTP/2 server answers the preface with its SETTINGS (RFC 9113 §3.4); one that
            // speaks only HTTP/1.1 closes the connection. Sending again cannot help.
            // The server is named by host and port alone: the client's redaction, which
            // may hide parts of the URL, is not known here.
            let server = (url.host ?? "the server") + (url.port.map { ":\($0)" } ?? "")
            return KringleError.unsupportedConfiguration(
                "\(server) closed the connection on HTTP/2's prior-knowledge preface without a word: the server "
                    + "does not speak h2c (HTTP/2 without TLS, RFC 9113 §3.3). Use CurlTransport.HTTPVersion.automatic "
                    + "or .http1_1 for it (\(error))")
        default:
            break
        }
        // CURLINFO_RESPONSE_CODE is set once a final status line has arrived.
        if error.cutsResponseShort(headArrived: easy.responseCode >= 200) {
            let expected = easy.expectedDownloadBytes
            return KringleError.incompleteResponse(
                url, received: easy.downloadedBytes, expected: expected >= 0 ? expected : nil, underlying: error)
        }
        return KringleError.transport(error)
    }

    /// The refusal of a proxy that answered a forwarded plain-http request with 407 Proxy
    /// Authentication Required (RFC 9110 §15.5.8: only a proxy sends it), or `nil`. The
    /// status is read only for a request that went through a proxy.
    ///
    /// Only an HTTP proxy that forwards a plain request answers it itself: a 407 through a
    /// `CONNECT` tunnel or a SOCKS proxy is the origin's, and a Unix socket's request never
    /// takes the proxy. A proxy libcurl found in the environment is not known here, so its
    /// 407 stays an unacceptable status.
    var proxyRefusal: KringleError? {
        guard let proxy, proxy.kind == .http || proxy.kind == .https else { return nil }
        let plan = submission.plan
        guard !plan.isHTTPS, plan.unixSocketPath == nil, easy.responseCode == 407 else { return nil }
        return .proxyRefused(plan.requestURL, proxy: URL(string: proxy.curlURL), status: 407)
    }

    /// What went wrong reaching a Unix socket, in words that name it: curl's own message
    /// names the `http://localhost` URL it was handed, port 80 included. The request is
    /// named by its path alone: the client's redaction of a query is not known here.
    private static func unixSocketFailure(_ socketPath: String, url: URL, errno: Int32) -> String {
        let reason =
            switch errno {
            case ENOENT: "no such socket (is the server running?)"
            case ECONNREFUSED: "nothing is listening on it"
            case EACCES: "permission denied"
            case ENOTSOCK: "the file is not a socket"
            case 0: "the connection failed"
            default: String(cString: strerror(errno))
            }
        let path = url.path(percentEncoded: true)
        return "Failed to connect to the Unix socket \(socketPath) for \(path.isEmpty ? "/" : path): \(reason)"
    }
}
