import Dispatch
import Foundation

/// The real clock: `DispatchTime` for timers and durations, `Date()` for dates.
///
/// Its timers share one dispatch timer source (see `TimerScheduler`), so a request's
/// timeout costs a heap insertion, not a system call.
public struct SystemClock: KringleClock {
    /// The real clock.
    public init() {}

    /// `DispatchTime.now()`'s uptime.
    public var uptimeNanoseconds: UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }

    /// `Date()`.
    public var now: Date {
        Date()
    }

    /// Runs `work` after `delay` seconds, on the library's timer queue.
    public func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> ClockTimer {
        ClockTimer(id: TimerScheduler.shared.schedule(after: delay, work))
    }

    /// Calls `timer`'s work off.
    public func cancel(_ timer: ClockTimer) {
        TimerScheduler.shared.cancel(timer.id)
    }

    /// `true`: these are real seconds.
    public var measuresRealTime: Bool { true }
}

extension KringleClock where Self == SystemClock {
    /// The real clock.
    public static var system: SystemClock { SystemClock() }
}
