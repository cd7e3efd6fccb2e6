import Foundation
import Kringle
@_spi(KringleInternals) import KringlePromise

/// A clock that moves only when a test says so: timeouts, delays, retry backoff and
/// `Retry-After` run exactly, without sleeping, however slow the machine.
///
/// Timers run synchronously inside ``advance(by:)``, in deadline order, each seeing the
/// clock at its own deadline; a timer scheduled while advancing runs in the same call if
/// it falls due before the new time.
///
/// ```swift
/// let clock = ManualClock()
/// var configuration = NetworkClient.Configuration()
/// configuration.clock = clock
/// configuration.timeout = 10
/// let call = NetworkClient(configuration: configuration, transport: slowTransport).get(endpoint)
/// await clock.untilTimersPending(1)   // the request's timeout is armed
/// clock.advance(by: 10)               // and fires: `call` rejects with KringleError.timedOut
/// ```
public final class ManualClock: KringleClock, Sendable {
    private struct Timer: Sendable {
        let deadline: UInt64
        let order: UInt64
        let work: @Sendable () -> Void
    }

    private struct Waiter: Sendable {
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State: Sendable {
        var uptime: UInt64 = 0
        var start: Date
        var nextID: UInt64 = 0
        var timers: [UInt64: Timer] = [:]
        var waiters: [Waiter] = []

        var nowDate: Date { start.addingTimeInterval(Double(uptime) / 1e9) }

        /// The waiters whose count is reached, removed.
        mutating func satisfiedWaiters() -> [Waiter] {
            let ready = waiters.filter { $0.count <= timers.count }
            waiters.removeAll { $0.count <= timers.count }
            return ready
        }
    }

    private let state: Locked<State>

    /// A clock whose calendar date starts at `now` and whose uptime starts at zero.
    ///
    /// - Parameter now: The date at the start; a fixed date by default (2023-11-14), so that
    ///   tests do not depend on the day they run.
    public init(now: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        state = Locked(State(start: now))
    }

    /// Nanoseconds advanced since the clock was made.
    public var uptimeNanoseconds: UInt64 {
        state.withLock { $0.uptime }
    }

    /// The starting date plus the time advanced.
    public var now: Date {
        state.withLock { $0.nowDate }
    }

    /// How many timers are scheduled and not yet run or cancelled.
    public var pendingTimers: Int {
        state.withLock { $0.timers.count }
    }

    /// The seconds from now to each pending timer's deadline, soonest first.
    public var pendingDelays: [TimeInterval] {
        state.withLock { state in
            state.timers.values.map { Double($0.deadline - state.uptime) / 1e9 }.sorted()
        }
    }

    /// Schedules `work` for `delay` seconds from now on this clock; it runs inside the
    /// ``advance(by:)`` that reaches its deadline.
    public func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> ClockTimer {
        let (id, ready) = state.withLock { state in
            state.nextID += 1
            let nanoseconds = UInt64((max(0, min(delay, 1e9)) * 1e9).rounded())
            state.timers[state.nextID] = Timer(deadline: state.uptime + nanoseconds, order: state.nextID, work: work)
            return (state.nextID, state.satisfiedWaiters())
        }
        for waiter in ready { waiter.continuation.resume() }
        return ClockTimer(id: id)
    }

    /// Calls `timer`'s work off.
    public func cancel(_ timer: ClockTimer) {
        // Released outside the lock: what the work captured may do anything in its deinit.
        let cancelled = state.withLock { $0.timers.removeValue(forKey: timer.id) }
        withExtendedLifetime(cancelled) {}
    }

    /// Moves the clock forward by `seconds`, running every timer that falls due on the way,
    /// in deadline order (and in scheduling order for equal deadlines).
    public func advance(by seconds: TimeInterval) {
        let target = state.withLock { $0.uptime + UInt64((max(0, min(seconds, 1e9)) * 1e9).rounded()) }
        while let timer = nextDue(by: target) {
            timer.work()
        }
        state.withLock { $0.uptime = max($0.uptime, target) }
    }

    /// Returns once at least `count` timers are pending: a test's way to know that the code
    /// under test has armed its timeout or scheduled its retry before it advances the clock.
    public func untilTimersPending(_ count: Int = 1) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                state.waiters.append(Waiter(count: count, continuation: continuation))
                return state.satisfiedWaiters()
            }
            for waiter in ready { waiter.continuation.resume() }
        }
    }

    /// Removes and returns the earliest timer due by `target`, with the clock moved to its
    /// deadline.
    private func nextDue(by target: UInt64) -> Timer? {
        state.withLock { state in
            guard let next = state.timers.values.min(by: { ($0.deadline, $0.order) < ($1.deadline, $1.order) }),
                next.deadline <= target
            else { return nil }
            state.timers.removeValue(forKey: next.order)
            state.uptime = max(state.uptime, next.deadline)
            return next
        }
    }
}
