import Foundation

/// One-shot work on a clock that can be called off.
///
/// Every request has a timeout, and nearly all of them are cancelled long before they fire,
/// so a timer must cost next to nothing: on the real clock, no dispatch source and no
/// system call of its own (they all share one ``TimerScheduler``).
struct PromiseTimer: Sendable {
    private let clock: any KringleClock
    private let timer: ClockTimer

    /// Runs `work` after `seconds` on `clock`, unless cancelled first.
    init(after seconds: TimeInterval, on clock: any KringleClock, _ work: @escaping @Sendable () -> Void) {
        self.clock = clock
        timer = clock.schedule(after: seconds, work)
    }

    /// Calls the work off and releases it at once.
    func cancel() {
        clock.cancel(timer)
    }
}
