import Dispatch
import Foundation

/// One-shot work on the library's timer queue that can be called off.
///
/// Cancelling drops the work closure at once, so a cancelled 60-second timeout does not
/// keep what it captured (a response, say) alive for a minute; only this small object
/// waits for the deadline.
final class PromiseTimer: Sendable {
    private let work: Locked<(@Sendable () -> Void)?>

    /// Runs `work` on the timer queue after `seconds`, unless cancelled first.
    init(after seconds: TimeInterval, _ work: @escaping @Sendable () -> Void) {
        self.work = Locked(work)
        DispatchQueue.promiseTimers.asyncAfter(deadline: .now() + max(0, seconds)) { [self] in
            take()?()
        }
    }

    func cancel() {
        _ = take()
    }

    private func take() -> (@Sendable () -> Void)? {
        work.withLock { work in
            defer { work = nil }
            return work
        }
    }
}
