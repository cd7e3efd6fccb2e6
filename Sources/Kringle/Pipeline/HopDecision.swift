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
            let response: HTTPResponse
            switch result {
            case .success(let received): response = received
            case .failure(PromiseError.timedOut): throw KringleError.timedOut
            case .failure(let error): throw error
            }
            client.configuration.cookieJar?.store(
                setCookieHeaders: response.setCookieLines, from: response.url,
                now: client.configuration.clock.now)
            // 4. redirect?
            if let redirect = Redirect(after: response, to: request, credentialHeaders: { allCredentialHeaders() }) {
                return .adopt(try follow(redirect, after: counted(response)))
            }
            // 5. validate
            guard client.configuration.acceptableStatusCodes.contains(response.statusCode) else {
                return try rejection(of: counted(response))
            }
            // The first hop of a first attempt passes the result on as it came: the response
            // is not copied to be counted.
            guard attempt == 1, earlier.isEmpty else { return .settle(.success(counted(response))) }
            return .settle(result)
        }

        /// `response` with the attempt it belongs to and the call's exchanges before it.
        private func counted(_ response: HTTPResponse) -> HTTPResponse {
            var counted = response
            counted.attempt = attempt
            counted.earlierExchanges = earlier
            return counted
        }

        /// The headers that are credentials for the redirect rules: the call's, the
        /// client's and its interceptors'.
        private func allCredentialHeaders() -> Set<String> {
            options.credentialHeaders.union(client.configuration.credentialHeaders)
                .union(client.configuration.interceptors.lazy.flatMap(\.credentialHeaders))
        }

        /// The next hop's final response, unless the redirect may not be followed.
        private func follow(_ redirect: Redirect, after response: HTTPResponse) throws -> Promise<HTTPResponse> {
            response.bodyChannel?.cancel()  // a redirect's body is not the caller's
            guard redirectsFollowed < client.configuration.maximumRedirects else {
                throw KringleError.tooManyRedirects(redirect.request.url ?? response.url)
            }
            if let target = redirect.request.url, Redirect.isDowngrade(from: response.url, to: target),
                !client.configuration.allowsRedirectsFromHTTPSToHTTP
            {
                throw KringleError.insecureRedirect(from: response.url, to: target)
            }
            return client.startHop(
                redirect.request,
                options: redirect.carrying(options),
                userCookie: redirect.keepsUserCookie
                    ? client.callerCookie(of: request, redirectsFollowed: redirectsFollowed, carried: userCookie)
                    : nil,
                redirectsFollowed: redirectsFollowed + 1,
                attempt: attempt,
                earlier: earlier + [response.exchange]
            ).response
        }

        /// The error for a response whose status is not acceptable, with the start of its
        /// body, as any other request keeps it: at once, or once a streamed body's start
        /// has arrived.
        private func rejection(of response: HTTPResponse) throws -> Outcome<HTTPResponse> {
            let limit = client.configuration.responseLimits.maximumErrorBodyBytes
            let redaction = client.configuration.redaction
            let unacceptable: @Sendable (HTTPResponse) -> KringleError = { response in
                KringleError.unacceptableStatusCode(response.statusCode, Response(response, redaction: redaction))
            }
            guard let channel = response.bodyChannel else {
                throw unacceptable(response.withBody(from: options, limit: limit))
            }
            let start = channel.collect(
                upTo: limit, within: client.configuration.timeout, clock: client.configuration.clock)
            return .adopt(
                start.then { start in
                    var failed = response
                    failed.body = start
                    failed.bodyChannel = nil
                    throw unacceptable(failed)
                })
        }
    }
}
