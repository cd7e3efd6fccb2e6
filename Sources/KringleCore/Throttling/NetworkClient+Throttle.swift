import Foundation
@_spi(KringleInternals) import KringlePromise

// A hop's turn at its host (stage 3 of NetworkClient+Pipeline.swift), for a client with a
// `HostThrottle`: the request waits for its slot, then goes to the transport, and what the
// answer says of the host's limits is taken in.

extension NetworkClient {
    /// `exchange`'s answer once the throttle lets the request to its host go.
    func throttled(
        _ request: ValidatedRequest, options: TransferOptions, by throttle: HostThrottle,
        slotTaken: Bool = false, probe: Bool = false,
        exchange: @escaping @Sendable () -> Promise<HTTPResponse>
    ) -> Promise<HTTPResponse> {
        let host = request.url.hostKey
        let clock = configuration.clock
        let deadline = options.deadline
        let again = { @Sendable (slotTaken: Bool, probe: Bool) in
            self.throttled(
                request, options: options, by: throttle, slotTaken: slotTaken, probe: probe, exchange: exchange)
        }
        switch throttle.admit(
            host: host, now: clock.uptimeNanoseconds, deadline: deadline, slotTaken: slotTaken, probe: probe)
        {
        case .go(let probe):
            return observed(exchange(), host: host, by: throttle, probe: probe)
        case .wait(let seconds, let probe):
            let turn = Promise(()).delay(seconds, clock: clock).flatMapResultInline { result in
                try result.get()
                return again(true, probe)
            }
            // A probe cancelled before it goes still lets the calls behind it go.
            if probe { turn.onCancel { throttle.firstRequestSettled(host: host) } }
            return turn
        case .waitForFirstAnswer(let answered):
            let bounded = deadline.map { answered.timeout($0.timeLeft(on: clock), clock: clock) } ?? answered
            return bounded.flatMapResultInline { result in
                if case .failure(PromiseError.timedOut) = result { throw KringleError.timedOut(.total) }
                try result.get()
                return again(false, false)
            }
        case .refused(let wait):
            return Promise(error: KringleError.throttled(host: host, wait: wait))
        }
    }

    /// `sent`, with what its answer says of the host's limits taken in (and logged when it
    /// pauses the host); for the host's first request, the calls waiting for it released.
    private func observed(_ sent: Promise<HTTPResponse>, host: String, by throttle: HostThrottle, probe: Bool)
        -> Promise<HTTPResponse>
    {
        let clock = configuration.clock
        let observed = sent.mapResultInline { result in
            if case .success(let response) = result,
                let pause = throttle.observe(response, host: host, now: clock.uptimeNanoseconds, date: clock.now)
            {
                self.log(.hostPaused(host: host, seconds: pause, statusCode: response.statusCode))
            }
            if probe { throttle.firstRequestSettled(host: host) }
            return try result.get()
        }
        if probe { observed.onCancel { throttle.firstRequestSettled(host: host) } }
        return observed
    }
}
