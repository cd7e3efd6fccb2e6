import Foundation

extension Promise {
    /// Runs `work` until its promise is fulfilled, at most `attempts` times in all.
    ///
    /// After a rejection the next attempt starts `delay` seconds later, unless `condition`
    /// returns `false` for that failure. Cancelling the returned promise cancels the running
    /// attempt and any pending delay. A cancelled attempt is never retried. `work` and
    /// `condition` may block until promise work they started has run, as on any concurrent
    /// queue.
    ///
    /// ```swift
    /// Promise.retry(attempts: 3, delay: 0.2) {
    ///     client.get(CatEndpoint.cuddle, as: Cat.self)
    /// }
    /// ```
    /// - Parameters:
    ///   - queue: Where `work` and `condition` run; ``Dispatch/DispatchQueue/promises`` by default.
    ///   - attempts: How many times `work` may run in all (the first try included).
    ///   - delay: Seconds to wait between a failure and the next attempt.
    ///   - clock: Where the delay is measured; the real clock by default.
    ///   - condition: Given the number of the attempt that failed (from 1) and its error,
    ///     says whether to try again; `nil` retries every failure.
    ///   - work: Starts one attempt.
    /// - Returns: A promise settled by the first fulfilled attempt, or rejected with the last
    ///   attempt's error.
    public static func retry(
        on queue: DispatchQueue = .promises,
        attempts: Int = 3,
        delay: TimeInterval = 1,
        clock: any KringleClock = .system,
        condition: (@Sendable (_ attempt: Int, _ error: any Error) -> Bool)? = nil,
        _ work: @escaping @Sendable () -> Promise<Value>
    ) -> Promise<Value> {
        let loop = RetryLoop(
            queue: queue, attempts: attempts, delay: delay, clock: clock, condition: condition, work: work)
        queue.sendPromiseJob { loop.attempt(1) }
        return loop.outcome
    }
}

/// The state of one `Promise.retry` call.
private final class RetryLoop<Value: Sendable>: Sendable {
    let outcome: Promise<Value> = .pending()
    private let queue: DispatchQueue
    private let attempts: Int
    private let delay: TimeInterval
    private let clock: any KringleClock
    private let condition: (@Sendable (Int, any Error) -> Bool)?
    private let work: @Sendable () -> Promise<Value>
    private let timer = Locked<PromiseTimer?>(nil)

    init(
        queue: DispatchQueue,
        attempts: Int,
        delay: TimeInterval,
        clock: any KringleClock,
        condition: (@Sendable (Int, any Error) -> Bool)?,
        work: @escaping @Sendable () -> Promise<Value>
    ) {
        self.queue = queue
        self.attempts = attempts
        self.delay = delay
        self.clock = clock
        self.condition = condition
        self.work = work
        outcome.onCancel { [timer] in timer.withLock { $0?.cancel() } }
    }

    func attempt(_ number: Int) {
        guard outcome.isPending else { return }
        var started: Promise<Value>?
        UserCode.run { started = work() }
        let attempt = started.unsafelyUnwrapped
        outcome.addDependency(attempt)
        // A cancel that ran while `work` was starting the attempt came before the dependency
        // that would have carried it: pass it on now.
        if outcome.isCancelled { attempt.cancel() }
        attempt.observe(on: queue, target: outcome) { settled, _ in
            let result = Promise<Value>.withOutcome(of: settled) { $0 }
            guard case .failure(let error) = result, self.shouldRetry(after: number, error) else {
                self.outcome.settle(result)
                return
            }
            let timer = PromiseTimer(after: self.delay, on: self.clock) {
                self.queue.sendPromiseJob { self.attempt(number + 1) }
            }
            self.timer.withLock { $0 = timer }
            // A cancel that ran between the check above and storing the timer missed it.
            if !self.outcome.isPending { timer.cancel() }
        }
    }

    private func shouldRetry(after number: Int, _ error: any Error) -> Bool {
        guard number < attempts, outcome.isPending, !error.isCancellation else { return false }
        guard let condition else { return true }
        var retries = false
        UserCode.run { retries = condition(number, error) }
        return retries
    }
}
