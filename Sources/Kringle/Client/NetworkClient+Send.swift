import Foundation
@_spi(KringleInternals) import KringlePromise
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkClient {
    /// Sends `request` through the transport, hop by hop: cookies are added to and stored
    /// from every hop, redirects are followed up to the configured maximum, and each hop
    /// gets the configured timeout.
    func send(_ request: URLRequest, options: TransferOptions = .none) -> Promise<HTTPResponse> {
        hop(request, options: options, userCookie: request.value(forHTTPHeaderField: "Cookie"), redirectsFollowed: 0)
    }

    /// - Parameter userCookie: The `Cookie` header the caller set by hand, merged with the
    ///   jar's cookies and dropped when a redirect changes origin.
    private func hop(
        _ request: URLRequest,
        options: TransferOptions,
        userCookie: String?,
        redirectsFollowed: Int
    ) -> Promise<HTTPResponse> {
        var outgoing = request
        if let url = request.url {
            let jarCookie = configuration.cookieJar?.cookieHeader(for: url)
            let merged = [userCookie, jarCookie].compactMap { $0 }.joined(separator: "; ")
            outgoing.setValue(merged.isEmpty ? nil : merged, forHTTPHeaderField: "Cookie")
        }
        let configuration = configuration
        let sent = outgoing
        logSent(sent)
        let start = DispatchTime.now()
        return exchange(sent, options: options)
            // Cookie bookkeeping and the redirect decision are quick: done on the thread that
            // delivered the response, saving a queue hop per request.
            .flatMapResultInline { result in
                let response: HTTPResponse
                do {
                    response = try result.get()
                } catch PromiseError.timedOut {
                    throw KringleError.timedOut
                }
                self.logReceived(response, for: sent, since: start)
                configuration.cookieJar?.store(
                    setCookieHeaders: response.headers.values(for: "Set-Cookie"),
                    from: response.url
                )
                guard let next = Redirect.request(after: response, to: request) else { return Promise(response) }
                guard redirectsFollowed < configuration.maximumRedirects else {
                    throw KringleError.tooManyRedirects(next.url ?? response.url)
                }
                let sameOrigin = request.url.flatMap { from in next.url.map { Redirect.sameOrigin(from, $0) } } ?? false
                return self.hop(
                    next,
                    options: options.following(next, from: request),
                    userCookie: sameOrigin ? userCookie : nil,
                    redirectsFollowed: redirectsFollowed + 1
                )
            }
    }

    /// One transport exchange under the configured timeout: the whole exchange for plain
    /// requests, the longest silence for streamed ones (a 1 GB download may take minutes).
    private func exchange(_ request: URLRequest, options: TransferOptions) -> Promise<HTTPResponse> {
        let configuration = configuration
        guard options.isStreaming else {
            return transport.send(request).timeout(configuration.timeout)
        }
        let watchdog = IdleWatchdog(timeout: configuration.timeout)
        let progress = options.progress
        let transfer = TransferRequest(
            request: request,
            body: options.body,
            responseBodyFile: options.responseBodyFile
        ) { report in
            watchdog.touch()
            progress?.update(report, acceptable: configuration.acceptableStatusCodes)
        }
        return watchdog.guarding(transport.transfer(transfer))
    }
}
