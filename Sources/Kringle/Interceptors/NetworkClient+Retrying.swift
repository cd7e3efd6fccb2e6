import Foundation
@_spi(KringleInternals) import KringlePromise
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkClient {
    /// One call's attempts: adapt, send (redirects and cookies included), judge the status,
    /// and on failure ask the interceptors whether to go again. The attempt counter lives
    /// in this call's recursion, so calls never share it.
    func attempt(_ request: URLRequest, options: TransferOptions = .none, number: Int) -> Promise<HTTPResponse> {
        let configuration = configuration
        return adapted(request).flatMapResultInline { adapted in
            let sent = try adapted.get()
            let outcome = self.send(sent, options: options).mapResultInline { result in
                let response = try result.get()
                guard configuration.acceptableStatusCodes.contains(response.statusCode) else {
                    throw KringleError.unacceptableStatusCode(response.statusCode, Response(response.withBody(from: options)))
                }
                return response
            }
            guard !configuration.interceptors.isEmpty else { return outcome }
            return outcome.recoverWith { error in
                guard !error.isCancellation,
                      configuration.maxRetryCount.map({ number <= $0 }) ?? true
                else { throw error }
                return self.retryDecision(for: sent, dueTo: error, attempt: number)
                    .then { decision in
                        switch decision {
                        case .doNotRetry:
                            throw error
                        case .retry:
                            self.logRetry(sent, attempt: number, reason: error, delay: 0)
                            return self.attempt(request, options: options, number: number + 1)
                        case .retryAfter(let delay):
                            self.logRetry(sent, attempt: number, reason: error, delay: delay)
                            return Promise(()).delay(delay).then { _ in self.attempt(request, options: options, number: number + 1) }
                        }
                    }
            }
        }
    }

    /// The request after every interceptor's `adapt`, in order.
    private func adapted(_ request: URLRequest) -> Promise<URLRequest> {
        configuration.interceptors.reduce(Promise(request)) { adapted, interceptor in
            adapted.then { interceptor.adapt($0) }
        }
    }

    /// The first decision other than ``RetryDecision/doNotRetry``, asking interceptors in order.
    private func retryDecision(for request: URLRequest, dueTo error: any Error, attempt: Int) -> Promise<RetryDecision> {
        configuration.interceptors.reduce(Promise(RetryDecision.doNotRetry)) { decided, interceptor in
            decided.then { decision in
                decision == .doNotRetry ? interceptor.retry(request, dueTo: error, attempt: attempt) : Promise(decision)
            }
        }
    }
}
