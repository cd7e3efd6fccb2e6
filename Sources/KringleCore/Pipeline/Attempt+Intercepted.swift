import Foundation
@_spi(KringleInternals) import KringlePromise

extension Attempt {
    /// An attempt of a client with interceptors: each interceptor's `adapt` before the first
    /// hop, and the interceptors' retry decision after a failure.
    @usableFromInline
    final class Intercepted: Sendable {
        let client: NetworkClient
        /// The request as the call built it, before any interceptor adapted it.
        let request: ValidatedRequest
        let options: TransferOptions
        /// The attempt's number, from 1: the interceptors see it, and `maxRetryCount` caps it.
        let number: Int
        /// The exchanges of the attempts before, for the call's metrics.
        let earlier: [RequestMetrics.Exchange]
        /// The call's trace, when it is traced.
        @usableFromInline let trace: CallTrace?
        /// The first hop, made once the interceptors have adapted the request: set before
        /// that hop starts, so before ``decide(_:)`` can read it; `nil` there when adapting
        /// failed.
        private let hop = Locked<NetworkClient.Hop?>(nil)

        init(
            client: NetworkClient, request: ValidatedRequest, options: TransferOptions, number: Int,
            earlier: [RequestMetrics.Exchange], trace: CallTrace?
        ) {
            self.client = client
            self.request = request
            self.options = options
            self.number = number
            self.earlier = earlier
            self.trace = trace
        }

        /// The first hop's answer as it came, after 2. adapt: each interceptor's `adapt`, in
        /// order.
        func start() -> Promise<HTTPResponse> {
            let adapting = client.configuration.interceptors.reduce(Promise(request.request)) {
                adapted, interceptor in
                adapted.then { request in
                    // User code, on the promises' queue: never where it would stall transfers.
                    ThreadConfinement.assertOffDrivingThreads("RequestInterceptor.adapt")
                    return interceptor.adapt(request)
                }
            }
            return adapting.flatMapResultInline { adapted in
                // What an interceptor returns is a new request, to be checked like any other.
                let hop = NetworkClient.Hop(
                    client: self.client, request: try ValidatedRequest(adapted.get()),
                    options: self.options, attempt: self.number, earlier: self.earlier, trace: self.trace)
                if self.number == 1, let budget = self.client.configuration.retryBudget {
                    budget.recordFirstAttempt(
                        to: hop.request.url.hostKey, now: self.client.configuration.clock.uptimeNanoseconds)
                }
                self.hop.withLock { $0 = hop }
                return hop.start()
            }
        }

        /// The first hop's decision on its answer, and for a failure, 6. retry?
        func decide(_ result: Result<HTTPResponse, any Error>) throws -> Outcome<HTTPResponse> {
            // Adapting failed: that is not retried.
            guard let hop = hop.withLock({ $0 }) else { return .settle(result) }
            let decided: Outcome<HTTPResponse>
            do {
                decided = try hop.decide(result)
            } catch {
                return .adopt(try retried(after: error, of: hop.request))
            }
            guard case .adopt(let redirected) = decided else { return decided }
            return .adopt(redirected.recoverWith { error in try self.retried(after: error, of: hop.request) })
        }

        /// The next attempt's response, if an interceptor asks for one after `error` (the
        /// first decision other than ``RetryDecision/doNotRetry``, asking interceptors in
        /// order, on the promises' queue); else `error`.
        private func retried(after error: any Error, of sent: ValidatedRequest) throws -> Promise<HTTPResponse> {
            let number = number
            guard !error.isCancellation, client.configuration.maxRetryCount.map({ number <= $0 }) ?? true else {
                throw error
            }
            // An attempt that got an answer passes its exchanges on; one that got none
            // (refused, timed out) has none to add.
            let carried = (error as? KringleError)?.response?.metrics?.exchanges ?? earlier
            let decision = client.configuration.interceptors.reduce(Promise(RetryDecision.doNotRetry)) {
                decided, interceptor in
                decided.then { decision in
                    ThreadConfinement.assertOffDrivingThreads("RequestInterceptor.retry")
                    return decision == .doNotRetry
                        ? interceptor.retry(sent.request, dueTo: error, attempt: number) : Promise(decision)
                }
            }
            return spanningRetry(decision, of: sent, dueTo: error).then { decision in
                let delay: TimeInterval
                switch decision {
                case .doNotRetry: throw error
                case .retry: delay = 0
                case .retryAfter(let seconds): delay = seconds
                }
                if let denial = self.denial(ofRetryAfter: delay, to: sent, dueTo: error) {
                    self.client.logRetryDenied(sent.request, attempt: number, reason: error, denial: denial)
                    throw error
                }
                self.client.logRetry(sent.request, attempt: number, reason: error, delay: delay)
                let next = { @Sendable in
                    Attempt(
                        client: self.client, request: self.request, options: self.options, number: number + 1,
                        earlier: carried, trace: self.trace
                    ).response
                }
                guard delay > 0 else { return next() }
                // The span begins before the wait does, so that it holds the whole wait.
                let span = self.trace?.begin(.backoff)
                var backoff = Promise(()).delay(delay, clock: self.client.configuration.clock)
                if let trace = self.trace, let span {
                    backoff = trace.spanning(backoff) { _ in trace.end(span) }
                }
                return backoff.then { _ in next() }
            }
        }

        /// `decision`, the interceptors' decision after `error`, as the call's retry span for
        /// a traced call.
        private func spanningRetry(
            _ decision: Promise<RetryDecision>, of sent: ValidatedRequest, dueTo error: any Error
        ) -> Promise<RetryDecision> {
            guard let trace else { return decision }
            let span = trace.begin(.retry)
            let number = number
            return trace.spanning(decision) { result in
                var attributes = CallTrace.attributes(
                    trace.attributes(of: sent), adding: Result<Void, any Error>.failure(error))
                attributes["http.request.resend_count"] = String(number)
                if case .success(let decision) = result { attributes["kringle.retry.decision"] = "\(decision)" }
                trace.end(span, attributes: attributes)
            }
        }

        /// Why a retry after `delay` seconds may not start, if it may not: it would start
        /// after the call's deadline, or the host's ``RetryBudget`` is spent (asked last, so
        /// that a retry the deadline denies spends nothing).
        private func denial(ofRetryAfter delay: TimeInterval, to sent: ValidatedRequest, dueTo error: any Error)
            -> RetryDenial?
        {
            let clock = client.configuration.clock
            if let deadline = options.deadline {
                let timeLeft = deadline.timeLeft(on: clock)
                if delay >= timeLeft { return .deadline(delay: delay, timeLeft: timeLeft) }
            }
            guard let budget = client.configuration.retryBudget, RetryBudget.counts(error) else { return nil }
            let host = sent.url.hostKey
            return budget.withdrawRetry(to: host, now: clock.uptimeNanoseconds) ? nil : .budget(host: host)
        }
    }
}
