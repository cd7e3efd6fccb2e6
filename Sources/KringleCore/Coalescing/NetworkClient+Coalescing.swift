import Foundation
@_spi(KringleInternals) import KringlePromise

// A hop's exchange shared with identical requests in flight (stage 3 of
// NetworkClient+Pipeline.swift), for a client that coalesces.

extension NetworkClient {
    /// The answer to `request` from the identical exchange in flight, or from a new one that
    /// identical requests may share; within this call's own deadline, whatever the others'.
    func coalesced(
        _ request: ValidatedRequest, options: TransferOptions, trace: CallTrace?, by coalescer: RequestCoalescer
    ) -> Promise<HTTPResponse> {
        // The shared exchange keeps no caller's deadline: each caller keeps its own, below,
        // and the last to leave (or to time out) cancels it.
        var shared = options
        shared.deadline = nil
        let answer = coalescer.join(RequestCoalescer.key(of: request)) {
            self.throttledExchange(request, options: shared, trace: trace)
        }
        return answer.timeout(at: options.deadline, clock: configuration.clock)
    }
}

extension RequestCoalescer {
    /// Whether `request` may share an exchange: a GET or HEAD (RFC 9110 §9.2.1: safe, so one
    /// exchange answers every caller as well as several would) without a body, its response
    /// held in memory (never a stream or a download).
    static func mayShare(_ request: ValidatedRequest, options: TransferOptions) -> Bool {
        !options.isStreaming && request.request.body == nil
            && (request.method == .get || request.method == .head)
    }
}
