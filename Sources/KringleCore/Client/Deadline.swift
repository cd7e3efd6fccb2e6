import Foundation
import KringlePromise

/// When an attempt at a request must be over: a point on the client's clock (its
/// ``/KringlePromise/KringleClock/uptimeNanoseconds``).
///
/// Made once per attempt, from the client's
/// ``NetworkClient/Configuration-swift.struct/timeout``, as the attempt starts; carried as it
/// is through every hop to the transport; turned into a unit only where one is needed, each
/// in one method here: seconds for a timer of the client's, whole milliseconds for libcurl
/// (`CURLOPT_TIMEOUT_MS`, worked out as the transfer starts, so that a wait for a connection
/// counts).
///
/// A deadline is only meaningful on the clock it was made on: ``CurlTransport`` is given one
/// only by a client on the ``/KringlePromise/SystemClock``, which it reads itself.
package struct Deadline: Sendable, Hashable, Comparable {
    /// The clock's uptime at which the time runs out.
    let uptimeNanoseconds: UInt64

    /// A deadline at `uptimeNanoseconds` on its clock.
    init(uptimeNanoseconds: UInt64) {
        self.uptimeNanoseconds = uptimeNanoseconds
    }

    /// The deadline `seconds` from now on `clock`, with nanosecond precision; `nil` for no
    /// limit: when `seconds` is zero or less, not a number, or too long to count in
    /// nanoseconds from now (centuries).
    init?(after seconds: TimeInterval, on clock: some KringleClock) {
        guard seconds > 0 else { return nil }
        let now = clock.uptimeNanoseconds
        let nanoseconds = seconds * 1e9
        // Also false for infinity (and NaN never got here).
        guard nanoseconds < Double(UInt64.max - now) else { return nil }
        uptimeNanoseconds = now + UInt64(nanoseconds)
    }

    package static func < (lhs: Deadline, rhs: Deadline) -> Bool {
        lhs.uptimeNanoseconds < rhs.uptimeNanoseconds
    }

    /// Whether the time has run out on `clock`.
    func hasPassed(on clock: some KringleClock) -> Bool {
        clock.uptimeNanoseconds >= uptimeNanoseconds
    }

    /// Nanoseconds left on `clock`; zero once the deadline has passed.
    func nanosecondsLeft(on clock: some KringleClock) -> UInt64 {
        let now = clock.uptimeNanoseconds
        return uptimeNanoseconds > now ? uptimeNanoseconds - now : 0
    }

    /// Seconds left on `clock`, for a timer; zero once the deadline has passed.
    func timeLeft(on clock: some KringleClock) -> TimeInterval {
        TimeInterval(nanosecondsLeft(on: clock)) / 1e9
    }

    /// Whole milliseconds left on `clock`, for libcurl (`CURLOPT_TIMEOUT_MS`): rounded up,
    /// so that a few nanoseconds left still make a limit, and capped at about 24 days (what
    /// a C `long` of milliseconds holds everywhere); `nil` once the deadline has passed,
    /// since libcurl reads 0 as "no limit".
    func milliseconds(on clock: some KringleClock) -> Int? {
        let left = nanosecondsLeft(on: clock)
        guard left > 0 else { return nil }
        let (whole, part) = left.quotientAndRemainder(dividingBy: 1_000_000)
        return Int(min(whole + (part > 0 ? 1 : 0), UInt64(Int32.max)))
    }
}
