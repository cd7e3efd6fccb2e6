import Foundation
@_spi(KringleInternals) import KringlePromise

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkClient {
    /// What a hop (3) makes of its answer, on the thread that delivered it: stores the
    /// response's cookies, then either follows a redirect (4) with the next hop, or
    /// validates the final response (5).
    ///
    /// A value rather than a closure, so that the pipeline's last step can hold it without
    /// an allocation of its own (``DecodeStep``).
    @usableFromInline
    struct HopDecision: Sendable {
        let client: NetworkClient
        /// The request the hop sent, as the caller or the redirect before made it.
        let request: URLRequest
        let options: TransferOptions
        /// On a redirect's hop, the `Cookie` header the caller set (see `startHop`).
        let userCookie: String?
        let redirectsFollowed: Int
        let attempt: Int
        let earlier: [RequestMetrics.Exchange]

        /// The final response (``Outcome/settle(_:)``, validated), or the promise of the
        /// next hop's (``Outcome/adopt(_:)``, a redirect or a streamed error body being
        /// read).
        @usableFromInline
        func decide(_ result: Result<HTTPResponse, any Error>) throws -> Outcome<HTTPResponse> {
            var response: HTTPResponse
            do {
                response = try result.get()
            } catch PromiseError.timedOut {
                throw KringleError.timedOut
            }
            response.attempt = attempt
            response.earlierExchanges = earlier
            client.configuration.cookieJar?.store(
                setCookieHeaders: response.setCookieLines, from: response.url,
                now: client.configuration.clock.now)
            // 4. redirect?
            let redirect = Redirect(after: response, to: request) {
                options.credentialHeaders.union(client.configuration.credentialHeaders)
                    .union(client.configuration.interceptors.lazy.flatMap(\.credentialHeaders))
            }
            guard let redirect else {
                // 5. validate
                guard client.configuration.acceptableStatusCodes.contains(response.statusCode) else {
                    let limit = client.configuration.responseLimits.maximumErrorBodyBytes
                    let unacceptable: @Sendable (HTTPResponse) -> KringleError = { response in
                        KringleError.unacceptableStatusCode(
                            response.statusCode, Response(response, redaction: client.configuration.redaction))
                    }
                    guard let channel = response.bodyChannel else {
                        throw unacceptable(response.withBody(from: options, limit: limit))
                    }
                    // A streamed body's start, for the error, as any other request keeps it.
                    let start = channel.collect(
                        upTo: limit, within: client.configuration.timeout, clock: client.configuration.clock)
                    return .adopt(
                        start.then { [response] start in
                            var failed = response
                            failed.body = start
                            failed.bodyChannel = nil
                            throw unacceptable(failed)
                        })
                }
                return .settle(.success(response))
            }
            response.bodyChannel?.cancel()  // a redirect's body is not the caller's
            guard redirectsFollowed < client.configuration.maximumRedirects else {
                throw KringleError.tooManyRedirects(redirect.request.url ?? response.url)
            }
            if let target = redirect.request.url, Redirect.isDowngrade(from: response.url, to: target),
                !client.configuration.allowsRedirectsFromHTTPSToHTTP
            {
                throw KringleError.insecureRedirect(from: response.url, to: target)
            }
            return .adopt(
                client.startHop(
                    redirect.request,
                    options: redirect.carrying(options),
                    userCookie: redirect.keepsUserCookie
                        ? client.callerCookie(of: request, redirectsFollowed: redirectsFollowed, carried: userCookie)
                        : nil,
                    redirectsFollowed: redirectsFollowed + 1,
                    attempt: attempt,
                    earlier: earlier + [response.exchange]
                ).response)
        }
    }
}
