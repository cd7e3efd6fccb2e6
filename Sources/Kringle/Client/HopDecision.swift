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
    /// A class, not a struct, because the pipeline's last step (``DecodeStep``) and the jobs
    /// it sets off each keep it: a copy is then one reference, where a struct's would be a
    /// dozen. (A closure would cost as much to allocate, and its call a thunk.)
    @usableFromInline
    final class HopDecision: Sendable {
        let client: NetworkClient
        /// The request the hop sent, as the caller or the redirect before made it.
        let request: URLRequest
        let options: TransferOptions
        /// On a redirect's hop, the `Cookie` header the caller set (see `startHop`).
        let userCookie: String?
        let redirectsFollowed: Int
        let attempt: Int
        let earlier: [RequestMetrics.Exchange]

        init(
            client: NetworkClient, request: URLRequest, options: TransferOptions, userCookie: String?,
            redirectsFollowed: Int, attempt: Int, earlier: [RequestMetrics.Exchange]
        ) {
            self.client = client
            self.request = request
            self.options = options
            self.userCookie = userCookie
            self.redirectsFollowed = redirectsFollowed
            self.attempt = attempt
            self.earlier = earlier
        }

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
            // A first attempt's first hop leaves the defaults as they are.
            if attempt != 1 { response.attempt = attempt }
            if !earlier.isEmpty { response.earlierExchanges = earlier }
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
                    let redaction = client.configuration.redaction
                    let unacceptable: @Sendable (HTTPResponse) -> KringleError = { response in
                        KringleError.unacceptableStatusCode(
                            response.statusCode, Response(response, redaction: redaction))
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
