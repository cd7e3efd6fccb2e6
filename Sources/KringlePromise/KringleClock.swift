import Dispatch
import Foundation

/// Where Kringle reads the time and schedules its timers: the real clock by default, a
/// `ManualClock` (from `KringleTesting`) in tests, which moves only when told.
///
/// Everything in Kringle that depends on time takes one: ``Promise/timeout(_:clock:)``,
/// ``Promise/delay(_:clock:)`` and ``Promise/retry(on:attempts:delay:clock:condition:_:)``,
/// and in `Kringle` the client's timeouts, retry backoff, `Retry-After`, cookie expiry,
/// log durations, transfer progress and the authentication refresh window.
///
/// ```swift
/// let clock = ManualClock()
/// let late = work.timeout(30, clock: clock)
/// clock.advance(by: 30)   // `late` rejects with PromiseError.timedOut, at once
/// ```
public protocol KringleClock: Sendable {
    /// Monotonic time in nanoseconds from an arbitrary start: for timers and durations. It
    /// never goes backwards.
    var uptimeNanoseconds: UInt64 { get }

    /// The calendar date: for times a protocol states as dates (a cookie's `Expires`, an
    /// HTTP-date `Retry-After`).
    var now: Date { get }

    /// Runs `work` once `delay` seconds have passed on this clock, unless cancelled first.
    ///
    /// `work` may run on any thread. On a clock that ``measuresRealTime`` it is tiny: it
    /// settles a promise or queues a job, and sends what may block (a
    /// ``Promise/timeout(_:clock:)`` cancelling the work it limits, whose
    /// ``Promise/onCancel(_:)`` handlers may block) to ``Dispatch/DispatchQueue/promises``.
    /// On any other clock it runs all of that itself (a `ManualClock` runs it inside
    /// `advance(by:)`, on the test's thread, so that a test sees its effects at once).
    func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> ClockTimer

    /// Calls off `timer`'s work if it has not run yet, and releases it at once.
    func cancel(_ timer: ClockTimer)

    /// Whether this clock's seconds are real seconds. Timers that only real time drives (a
    /// transport's own time-out inside URLSession or libcurl) are given a limit only when
    /// they are; on any other clock, the clock's own timers are the only limits. `false`
    /// unless a clock says otherwise.
    var measuresRealTime: Bool { get }
}

extension KringleClock {
    /// `false`: a clock's seconds are not taken for real ones unless it says so.
    public var measuresRealTime: Bool { false }
}
