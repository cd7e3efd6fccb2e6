import Foundation
@_spi(KringleInternals) import KringlePromise

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The one path every request takes, top to bottom:
//
// 1. build      the endpoint, method and body become a `URLRequest` (`RequestAssembly`); a
//               JSON body is encoded on the coding queue.
// 2. adapt      each interceptor's `adapt`, in order.
// 3. hop        cookies out, the request checked (`RequestValidation`), the answer from the
//               cache where RFC 9111 allows it (NetworkClient+Cache) or else the
//               transport's exchange, logged; cookies in.
// 4. redirect?  a 3xx with a `Location` makes another hop; `Redirect` says what changes.
// 5. validate   a status outside `acceptableStatusCodes` becomes an error.
// 6. retry?     a failure goes to the interceptors' `retry`; a retry starts again at 2.
// 7. decode     the final response becomes the caller's value, on the coding queue.
//
// The bookkeeping between stages (cookies, redirect decisions, validation) runs on the
// thread that delivered the response: it is quick, and saves a queue hop per request. A
// client without interceptors has nothing to adapt or retry: its first hop's decision and
// the decode are then one step (one promise fewer per request).

extension NetworkClient {
    /// Builds the request (1), then runs the rest of the pipeline.
    ///
    /// Inlinable, as is ``runPipeline(for:options:output:)``, so that a call such as
    /// `get(_:as:)`, inlinable too, has the promises of its value compiled for the value's
    /// type in the caller's module: generic code there would look up the type metadata of
    /// the promise's internals at run time, several times per request. The part that
    /// depends on the endpoint's type is a function of its own, so that a caller that is
    /// generic over the endpoint (or holds an `any Endpoint`) still gets that.
    ///
    /// - Parameter cachePolicy: The call's own policy, over the endpoint's.
    @inlinable @inline(__always)
    func runPipeline<Output: Sendable>(
        _ method: HTTPMethod,
        _ endpoint: some Endpoint,
        body: RequestBody?,
        cachePolicy: CachePolicy? = nil,
        output: @escaping @Sendable (HTTPResponse) throws -> Output
    ) -> Promise<Output> {
        switch assemble(method, endpoint, body: body) {
        case .built(let built):
            return runPipeline(for: built.request, options: built.options(cachePolicy: cachePolicy), output: output)
        case .failed(let error):
            return Promise(error: error)
        case .encoding(let building):
            return building.flatMapResultInline { result in
                let built = try result.get()
                return self.runPipeline(
                    for: built.request, options: built.options(cachePolicy: cachePolicy), output: output)
            }
        }
    }

    /// The request for `method` on `endpoint`, or the promise of it when a JSON body must be
    /// encoded first (on the coding queue).
    @usableFromInline
    func assemble(_ method: HTTPMethod, _ endpoint: some Endpoint, body: RequestBody?) -> Assembly {
        // A body holds an existential, so matching `.json?` copies it, through its metadata:
        // a call without a body (every GET) is told apart first by a comparison that does not.
        guard body != nil, case .json? = body else {
            // Nothing to encode: building the URL and headers costs less than a queue hop.
            do {
                return .built(try RequestAssembly.build(method, endpoint, body: body, for: self))
            } catch {
                return .failed(error)
            }
        }
        return .encoding(
            Promise(()).map(on: Self.codingQueue) { _ in
                try RequestAssembly.build(method, endpoint, body: body, for: self)
            })
    }

    /// What ``assemble(_:_:body:)`` gives: the request, why there is none, or its promise.
    @usableFromInline
    enum Assembly: Sendable {
        case built(RequestAssembly.Built)
        case failed(any Error)
        case encoding(Promise<RequestAssembly.Built>)
    }

    /// Runs a built request through stages 2 to 7, and logs a failure, cancellation
    /// included.
    ///
    /// Only stage 7 knows the output type: the stages before it work on ``HTTPResponse``,
    /// so that they are compiled for it once rather than run as generic code, which looks
    /// up type metadata at run time on every request.
    @inlinable
    func runPipeline<Output: Sendable>(
        for request: URLRequest,
        options: TransferOptions = .none,
        output: @escaping @Sendable (HTTPResponse) throws -> Output
    ) -> Promise<Output> {
        // 7. decode. A failure passes on at once, so that a time-out or a cancellation is
        // never held up behind busy decoders.
        let decoded: Promise<Output>
        if configuration.interceptors.isEmpty {
            // One attempt, as nothing can ask for a retry: its first hop's decision and the
            // decode are one step, which saves a promise per request.
            let hop = startOnlyAttempt(request, options: options)
            decoded = hop.answer.mapSuccess(
                DecodeStep(hop: hop.decision, writesBodyToFile: options.writesBodyToFile, output: output),
                on: Self.codingQueue)
        } else {
            decoded = attempt(request, options: options, number: 1).mapSuccess(
                DecodeStep(hop: nil, writesBodyToFile: options.writesBodyToFile, output: output),
                on: Self.codingQueue)
        }
        guard isLogging else { return decoded }
        let logged = decoded.mapResultInline { result in
            if case .failure(let error) = result { self.logFailure(request, error) }
            return try result.get()
        }
        logged.onCancel { self.logFailure(request, PromiseError.cancelled) }
        return logged
    }

    /// Encodes bodies and decodes responses, off the caller's thread and the transport's
    /// (but see `consumerDecodeLimit`).
    ///
    /// The promises' own queue, where the caller's handlers run by default: the decode runs
    /// there as a job of its own (`Promise.mapSuccess`), after which a handler it sets off on
    /// that queue runs on the same thread, so the value reaches the caller's handler without
    /// a second thread hop. A thread blocked in `wait()` never takes on the decode of another
    /// request.
    @usableFromInline
    static var codingQueue: DispatchQueue { .promises }

    /// The largest body that a caller blocked in `wait()` (without a time-out) or awaiting
    /// `value` decodes itself rather than on the coding queue (a download never does): one
    /// thread wake-up less per request, and a decode this small (well under a millisecond)
    /// never holds up the caller's cancellation noticeably.
    @usableFromInline
    static let consumerDecodeLimit = 64 * 1024

    /// Stage 7 as one step of `mapSuccess`: the hop's decision, when it is still to be made,
    /// then the decode on the coding queue.
    ///
    /// A type rather than closures: `mapSuccess` compiled for it calls its methods
    /// directly, where each closure would be wrapped in a thunk, allocated per request.
    @usableFromInline
    struct DecodeStep<Output: Sendable>: SuccessStep {
        /// The only hop's decision (a client without interceptors), or `nil` when the
        /// response comes decided already.
        @usableFromInline let hop: HopDecision?
        /// A download's last step moves (or appends) a file, which may take long: never
        /// run by a consumer.
        @usableFromInline let writesBodyToFile: Bool
        @usableFromInline let output: @Sendable (HTTPResponse) throws -> Output

        @inlinable
        init(hop: HopDecision?, writesBodyToFile: Bool, output: @escaping @Sendable (HTTPResponse) throws -> Output) {
            self.hop = hop
            self.writesBodyToFile = writesBodyToFile
            self.output = output
        }

        @inlinable
        func decide(_ result: Result<HTTPResponse, any Error>) throws -> Outcome<HTTPResponse> {
            guard let hop else { return .settle(result) }
            return try hop.decide(result)
        }

        /// A small decode may run on the consumer waiting for it.
        @inlinable
        func consumerMayRun(_ response: HTTPResponse) -> Bool {
            !writesBodyToFile && response.body.count <= NetworkClient.consumerDecodeLimit
        }

        @inlinable
        func run(_ response: HTTPResponse) throws -> Output {
            try output(response)
        }
    }

    /// One attempt of a client with interceptors: adapt (2), the hops (3, 4) and
    /// validation (5), and on failure the retry decision (6), which may start the next
    /// attempt. (Without interceptors nothing adapts or retries: see
    /// ``startOnlyAttempt(_:options:)``.)
    ///
    /// - Parameters:
    ///   - number: The attempt's number, from 1: the interceptors see it, and
    ///     `maxRetryCount` caps it.
    ///   - earlier: The exchanges of the attempts before, for the call's metrics.
    @usableFromInline
    func attempt(
        _ request: URLRequest, options: TransferOptions, number: Int, earlier: [RequestMetrics.Exchange] = []
    ) -> Promise<HTTPResponse> {
        adapted(request).flatMapResultInline { adapted in
            let sent = try adapted.get()
            // 6. retry?
            return self.hops(sent, options: options, attempt: number, earlier: earlier).recoverWith { error in
                guard !error.isCancellation, self.configuration.maxRetryCount.map({ number <= $0 }) ?? true else {
                    throw error
                }
                // An attempt that got an answer passes its exchanges on; one that got none
                // (refused, timed out) has none to add.
                let carried = (error as? KringleError)?.response?.metrics?.exchanges ?? earlier
                return self.retryDecision(for: sent, dueTo: error, attempt: number).then { decision in
                    switch decision {
                    case .doNotRetry:
                        throw error
                    case .retry:
                        self.logRetry(sent, attempt: number, reason: error, delay: 0)
                        return self.attempt(request, options: options, number: number + 1, earlier: carried)
                    case .retryAfter(let delay):
                        self.logRetry(sent, attempt: number, reason: error, delay: delay)
                        return Promise(()).delay(delay, clock: self.configuration.clock).then { _ in
                            self.attempt(request, options: options, number: number + 1, earlier: carried)
                        }
                    }
                }
            }
        }
    }

    /// The hops of one attempt (3, 4), the final response validated (5).
    private func hops(
        _ request: URLRequest, options: TransferOptions, attempt: Int, earlier: [RequestMetrics.Exchange]
    ) -> Promise<HTTPResponse> {
        startHop(
            request, options: timed(options), userCookie: nil, redirectsFollowed: 0, attempt: attempt, earlier: earlier
        )
        .response
    }

    /// `options` with the deadline of an attempt starting now: the client's timeout runs
    /// from here across the attempt's hops, waits for a connection included. A retry is a
    /// new attempt with a new deadline.
    private func timed(_ options: TransferOptions) -> TransferOptions {
        let timeout = configuration.timeout
        guard !options.isStreaming, timeout > 0 else { return options }
        let now = configuration.clock.uptimeNanoseconds
        // A timeout too long to count in nanoseconds (centuries) is no limit.
        guard timeout * 1e9 < Double(UInt64.max - now) else { return options }
        var timed = options
        timed.deadline = now + UInt64(timeout * 1e9)
        return timed
    }

    /// 2. adapt: the request after every interceptor's `adapt`, in order.
    private func adapted(_ request: URLRequest) -> Promise<URLRequest> {
        configuration.interceptors.reduce(Promise(request)) { adapted, interceptor in
            adapted.then { interceptor.adapt($0) }
        }
    }

    /// The first decision other than ``RetryDecision/doNotRetry``, asking interceptors in order.
    private func retryDecision(for request: URLRequest, dueTo error: any Error, attempt: Int) -> Promise<RetryDecision>
    {
        configuration.interceptors.reduce(Promise(RetryDecision.doNotRetry)) { decided, interceptor in
            decided.then { decision in
                decision == .doNotRetry ? interceptor.retry(request, dueTo: error, attempt: attempt) : Promise(decision)
            }
        }
    }

    /// A hop under way: the answer to come, and what to make of it.
    @usableFromInline
    struct StartedHop: Sendable {
        /// The transport's (or the cache's) answer, or why the request could not be sent.
        @usableFromInline let answer: Promise<HTTPResponse>
        /// The hop's decision on its answer.
        @usableFromInline let decision: HopDecision

        /// The hop's final response, as decided, on its own promise.
        var response: Promise<HTTPResponse> { answer.continueInline(decision.decide) }
    }

    /// The first hop of a call's only attempt (a client without interceptors never
    /// retries), for ``runPipeline(for:options:output:)``, which decodes after its decision
    /// in the same step.
    @usableFromInline
    func startOnlyAttempt(_ request: URLRequest, options: TransferOptions) -> StartedHop {
        startHop(request, options: timed(options), userCookie: nil, redirectsFollowed: 0, attempt: 1, earlier: [])
    }

    /// 3. hop, started: one request to the transport with the jar's cookies; its decision
    /// then stores the response's cookies and, for a redirect (4), starts the next hop, or
    /// validates the final response (5).
    ///
    /// - Parameters:
    ///   - userCookie: On a redirect's hop, the `Cookie` header the caller set, merged with
    ///     the jar's on every hop to the original origin. The first hop reads it from
    ///     `request` (``callerCookie(of:redirectsFollowed:carried:)``), and only when it needs
    ///     it: when the jar has cookies to add, or for the redirect it follows. Looking a
    ///     field up in a `URLRequest` is not free.
    ///   - redirectsFollowed: Hops so far, against `maximumRedirects`.
    ///   - attempt: The attempt the hop belongs to.
    ///   - earlier: The call's exchanges before this hop, for its metrics.
    func startHop(
        _ request: URLRequest,
        options: TransferOptions,
        userCookie: String?,
        redirectsFollowed: Int,
        attempt: Int,
        earlier: [RequestMetrics.Exchange]
    ) -> StartedHop {
        var sent = request
        // The request as assembled, checked then, unless an interceptor, the jar or a
        // redirect changes it.
        var isChecked = options.requestIsChecked && redirectsFollowed == 0 && configuration.interceptors.isEmpty
        if let url = request.url {
            let jarCookie = configuration.cookieJar?.cookieHeader(for: url, now: configuration.clock.now)
            // The first hop already carries the caller's cookie: without the jar's there is
            // nothing to change (and changing a URLRequest copies it).
            if jarCookie != nil || redirectsFollowed > 0 {
                let userCookie = callerCookie(of: request, redirectsFollowed: redirectsFollowed, carried: userCookie)
                let merged = [userCookie, jarCookie].compactMap { $0 }.joined(separator: "; ")
                sent.setValue(merged.isEmpty ? nil : merged, forHTTPHeaderField: "Cookie")
                isChecked = false
            }
        }
        let answer: Promise<HTTPResponse>
        do {
            if !isChecked { try RequestValidation.validate(sent) }
            answer = self.answer(sent, options: options)
        } catch {
            answer = Promise(error: error)
        }
        return StartedHop(
            answer: answer,
            decision: HopDecision(
                client: self, request: request, options: options, userCookie: userCookie,
                redirectsFollowed: redirectsFollowed, attempt: attempt, earlier: earlier))
    }

    /// The `Cookie` header the caller set: the first hop's own, or the one a redirect's hop
    /// carries.
    func callerCookie(of request: URLRequest, redirectsFollowed: Int, carried: String?) -> String? {
        redirectsFollowed == 0 ? request.value(forHTTPHeaderField: "Cookie") : carried
    }

    /// The transport's exchange, logged when there is a logger: the request as sent, and
    /// the response with the time it took.
    func loggedExchange(_ request: URLRequest, options: TransferOptions) -> Promise<HTTPResponse> {
        guard isLogging else { return exchange(request, options: options) }
        logSent(request)
        let start = configuration.clock.uptimeNanoseconds
        return exchange(request, options: options).mapResultInline { result in
            if case .success(let response) = result { self.logReceived(response, for: request, since: start) }
            return try result.get()
        }
    }

    /// The transport's exchange for one hop, within the client's timeout: what is left of
    /// the attempt's for a buffered request, the longest time without progress for a
    /// transfer.
    private func exchange(_ request: URLRequest, options: TransferOptions) -> Promise<HTTPResponse> {
        let limits = configuration.responseLimits
        guard options.isStreaming else {
            var timeLeft: TimeInterval?
            if let deadline = options.deadline {
                let now = configuration.clock.uptimeNanoseconds
                // A redirect that came as the time ran out goes no further.
                guard deadline > now else { return Promise(error: KringleError.timedOut) }
                timeLeft = TimeInterval(deadline - now) / 1e9
            }
            guard let sending = clientSendingTransport else {
                return transport.send(request).timeout(within: timeLeft, clock: configuration.clock)
                    .mapResultInline { result in try Self.checked(result.get(), against: limits) }
            }
            // The transport keeps the time itself (the whole of it, a wait for a connection
            // included) when it can and the clock is the real one.
            if sending.enforcesTimeLimits, configuration.clock.measuresRealTime, let timeLeft {
                return sending.send(request, timeLimit: timeLeft, limits: limits)
            }
            return sending.send(request, timeLimit: nil, limits: limits)
                .timeout(within: timeLeft, clock: configuration.clock)
        }
        let responseBodyHandle: FileHandle?
        do {
            responseBodyHandle = try options.responseBodyFile?.handleForTransfer()
        } catch {
            return Promise(error: error)
        }
        let watchdog = IdleWatchdog(timeout: configuration.timeout, clock: configuration.clock)
        let progress = options.progress
        let channel = options.bodyChannels?.make()
        let transfer = TransferRequest(
            request: request,
            body: options.body,
            responseBodyFile: options.responseBodyFile?.url,
            responseBodyHandle: responseBodyHandle,
            limits: limits,
            responseBodyChannel: channel
        ) { report in
            watchdog.touch()
            progress?.update(report, acceptable: self.configuration.acceptableStatusCodes)
        }
        // For a streamed body, the watchdog times the head alone: the transfer's promise
        // settles with it.
        let transferred = watchdog.guarding(transport.transfer(transfer))
        if let channel {
            transferred.onCancel { channel.cancel() }
            return transferred.mapResultInline { result in
                var response = try result.get()
                response.bodyChannel = channel
                return response
            }
        }
        guard clientSendingTransport == nil else { return transferred }
        let file = options.responseBodyFile
        return transferred.mapResultInline { result in try Self.checked(result.get(), against: limits, file: file) }
    }

    /// A response from a transport that does not hold bodies within the limits itself,
    /// checked once it has arrived (its memory is spent by then, but the caller still gets
    /// the error the limit promises).
    private static func checked(
        _ response: HTTPResponse, against limits: ResponseLimits, file: DownloadTemporaryFile? = nil
    ) throws -> HTTPResponse {
        let decoded = file?.size ?? Int64(response.body.count)
        if let crossed = limits.crossed(decoded: decoded, toFile: file != nil, received: { nil }) {
            throw KringleError.responseTooLarge(response.url, limit: crossed)
        }
        return response
    }
}

extension Promise {
    /// This promise, rejected with `PromiseError.timedOut` unless it settles within
    /// `seconds`; this promise itself when there is no limit (`nil`).
    fileprivate func timeout(within seconds: TimeInterval?, clock: any KringleClock) -> Promise<Value> {
        guard let seconds else { return self }
        return timeout(seconds, clock: clock)
    }
}
