import Foundation

extension Promise {
    /// Fulfils `seconds` after this promise is fulfilled, with the same value.
    ///
    /// A rejection passes through at once. Cancelling the returned promise cancels the
    /// wait (and the work upstream, if it is still pending).
    ///
    /// ```swift
    /// Promise(()).delay(0.5).done { print("half a second later") }
    /// ```
    /// - Parameters:
    ///   - seconds: How long to wait after the fulfilment.
    ///   - clock: Where the time is measured; the real clock by default.
    public func delay(_ seconds: TimeInterval, clock: any KringleClock = .system) -> Promise<Value> {
        let next = Promise<Value>(dependingOn: self)
        observeInline(target: next) { settled, _ in
            guard Self.withOutcome(of: settled, { $0.isSuccess }) else {
                next.settle(asSettled: settled)
                return
            }
            let upstream = unsafeDowncast(settled, to: Promise<Value>.self)
            let timer = PromiseTimer(after: seconds, on: clock) { next.settle(asSettled: upstream) }
            next.onCancel { timer.cancel() }
        }
        return next
    }
}
