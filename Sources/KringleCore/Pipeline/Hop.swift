import Foundation
@_spi(KringleInternals) import KringlePromise

extension NetworkClient {
    /// One hop of an attempt, stages 3 to 5 of the pipeline (NetworkClient+Pipeline.swift): the
    /// request goes out with the jar's cookies to the cache or the transport (``start()``);
    /// its answer's cookies go into the jar, and a redirect starts the next hop, or the
    /// final response is validated (``decide(_:)``).
    ///
    /// An attempt's hops are one loop, here: `start`, `decide`, and for a redirect the next
    /// hop's `start`, until a response is final, `maximumRedirects` is passed or the
    /// attempt's deadline (``TransferOptions/deadline``) is.
    ///
    /// A class, not a struct, because the jobs it sets off each keep it: a copy is then one
    /// reference, where a struct's would be a dozen. (A closure would cost as much to
    /// allocate, and its call a thunk.)
    @usableFromInline
    final class Hop: Sendable {
        let client: NetworkClient
        /// The request as the caller, an interceptor or the redirect before made it,
        /// without the jar's cookies.
        let request: ValidatedRequest
        let options: TransferOptions
        /// On a redirect's hop, the `Cookie` header the caller set, merged with the jar's
        /// on every hop to the original origin (see ``callerCookie``).
        let userCookie: String?
        /// Hops before this one, against `maximumRedirects`.
        let redirectsFollowed: Int
        /// The attempt the hop belongs to.
        let attempt: Int
        /// The call's exchanges before this hop, for its metrics.
        let earlier: [RequestMetrics.Exchange]
        /// The call's trace, when it is traced.
        @usableFromInline let trace: CallTrace?

        init(
            client: NetworkClient, request: ValidatedRequest, options: TransferOptions, userCookie: String? = nil,
            redirectsFollowed: Int = 0, attempt: Int, earlier: [RequestMetrics.Exchange],
            trace: CallTrace?
        ) {
            self.client = client
            self.request = request
            self.options = options
            self.userCookie = userCookie
            self.redirectsFollowed = redirectsFollowed
            self.attempt = attempt
            self.earlier = earlier
            self.trace = trace
        }

        /// The hop's final response, as decided, on its own promise.
        var response: Promise<HTTPResponse> { start().continueInline(decide) }

        /// 3. hop: the answer to the request with the jar's cookies, from the cache when
        /// the client has one and RFC 9111 lets it answer, else from the transport.
        func start() -> Promise<HTTPResponse> {
            let sent: ValidatedRequest
            do {
                sent = try withCookies()
            } catch {
                return Promise(error: error)
            }
            guard let trace else { return exchange(sent, options: options, trace: nil) }
            return traced(sent, by: trace)
        }

        /// The answer to `sent`: from the cache, a branch of its own (a client without one never
        /// goes near it), else from the transport.
        private func exchange(_ sent: ValidatedRequest, options: TransferOptions, trace: CallTrace?)
            -> Promise<HTTPResponse>
        {
            guard let cache = client.configuration.cache else {
                return client.loggedExchange(sent, options: options, trace: trace)
            }
            return client.answer(sent, options: options, from: cache, trace: trace)
        }

        /// The exchange of a traced call: the request carries the trace (W3C Trace Context
        /// §3.2 and §3.3), with this hop's own span as the parent, and the hop is a span.
        private func traced(_ request: ValidatedRequest, by trace: CallTrace) -> Promise<HTTPResponse> {
            let hop = trace.begin(.hop)
            let sent: ValidatedRequest
            do {
                let withParent = try request.setting(trace.context.traceparent(spanID: hop.id), forField: "traceparent")
                sent = try withParent.setting(trace.context.state, forField: "tracestate")
            } catch {
                trace.end(hop, attributes: CallTrace.attributes([:], adding: Result<Void, any Error>.failure(error)))
                return Promise(error: error)
            }
            trace.beginQueue()
            let attributes = trace.attributes(of: sent)
            return trace.spanning(exchange(sent, options: options, trace: trace)) { result in
                trace.endQueue()
                trace.end(hop, attributes: CallTrace.attributes(attributes, adding: result))
            }
        }

        /// The request with the jar's cookies for its URL, after the caller's own.
        private func withCookies() throws -> ValidatedRequest {
            let jarCookie = client.configuration.cookieJar?.cookieHeader(
                for: request.url, now: client.configuration.clock.now)
            // The first hop already carries the caller's cookie: without the jar's there is
            // nothing to change (and changing a request copies it).
            guard jarCookie != nil || redirectsFollowed > 0 else { return request }
            let merged = [callerCookie, jarCookie].compactMap { $0 }.joined(separator: "; ")
            return try request.setting(merged.isEmpty ? nil : merged, forField: "Cookie")
        }

        /// The `Cookie` header the caller set: the first hop's own, or the one a redirect's
        /// hop carries. Read from the request only when needed: looking a field up compares
        /// names without case, one by one.
        private var callerCookie: String? {
            redirectsFollowed == 0 ? request.request.headers.combinedValue(for: "Cookie", separator: "; ") : userCookie
        }

        /// The final response (``Outcome/settle(_:)``, validated), or the promise of the
        /// next hop's (``Outcome/adopt(_:)``, a redirect or a streamed error body being
        /// read).
        func decide(_ result: Result<HTTPResponse, any Error>) throws -> Outcome<HTTPResponse> {
            let response: HTTPResponse
            switch result {
            case .success(let received): response = received
            case .failure(PromiseError.timedOut): throw KringleError.timedOut(.total)
            case .failure(let error): throw error
            }
            client.configuration.cookieJar?.store(
                setCookieHeaders: response.setCookieLines, from: response.url, now: client.configuration.clock.now)
            // 4. redirect? Only a 3xx can be one.
            if response.statusCode / 100 == 3,
                let redirect = try Redirect(
                    after: response, to: request.request, credentialHeaders: { allCredentialHeaders() })
            {
                return .adopt(try next(after: redirect, from: counted(response)).response)
            }
            // 5. validate
            // A WebSocket's `101 Switching Protocols` is its success (RFC 6455 §4.1).
            guard
                client.configuration.acceptableStatusCodes.contains(response.statusCode)
                    || (response.statusCode == 101 && options.bodyChannels?.webSocket != nil)
            else {
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

        /// The hop that follows `redirect`, unless the redirect may not be followed.
        private func next(after redirect: Redirect, from response: HTTPResponse) throws -> Hop {
            response.bodyChannel?.cancel()  // a redirect's body is not the caller's
            let configuration = client.configuration
            guard redirectsFollowed < configuration.maximumRedirects else {
                throw KringleError.tooManyRedirects(redirect.request.url)
            }
            let target = redirect.request.url
            if Redirect.isDowngrade(from: response.url, to: target), !configuration.allowsRedirectsFromHTTPSToHTTP {
                throw KringleError.insecureRedirect(from: response.url, to: target)
            }
            return Hop(
                client: client,
                // A new request, from the server's `Location`: checked like any other.
                request: try ValidatedRequest(redirect.request),
                options: redirect.carrying(options),
                userCookie: redirect.keepsUserCookie ? callerCookie : nil,
                redirectsFollowed: redirectsFollowed + 1,
                attempt: attempt,
                earlier: earlier + [response.exchange], trace: trace)
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
                upTo: limit, within: client.timeout(of: options), clock: client.configuration.clock)
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
