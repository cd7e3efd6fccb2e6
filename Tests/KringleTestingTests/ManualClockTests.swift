import Foundation
import KringleTestSupport
import KringleTesting
import Testing

@Suite("ManualClock", .generousTimeLimit)
struct ManualClockTests {
    /// What the timers did, in order.
    final class Log: Sendable {
        private let entries = Box<[String]>([])
        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    @Test("time moves only when advanced; the date moves with the uptime")
    func movesWhenAdvanced() {
        let start = Date(timeIntervalSince1970: 1_000)
        let clock = ManualClock(now: start)
        #expect(clock.uptimeNanoseconds == 0)
        #expect(clock.now == start)
        clock.advance(by: 1.5)
        #expect(clock.uptimeNanoseconds == 1_500_000_000)
        #expect(clock.now == start.addingTimeInterval(1.5))
    }

    @Test("advancing runs the timers that fall due, in deadline order, each at its own time")
    func runsDueTimersInOrder() {
        let clock = ManualClock()
        let log = Log()
        _ = clock.schedule(after: 2) { log.append("b at \(clock.uptimeNanoseconds)") }
        _ = clock.schedule(after: 1) { log.append("a at \(clock.uptimeNanoseconds)") }
        _ = clock.schedule(after: 1) { log.append("a2 at \(clock.uptimeNanoseconds)") }
        _ = clock.schedule(after: 3) { log.append("c") }
        clock.advance(by: 2)
        #expect(log.all == ["a at 1000000000", "a2 at 1000000000", "b at 2000000000"])
        #expect(clock.pendingDelays == [1])
        #expect(clock.uptimeNanoseconds == 2_000_000_000)
    }

    @Test("a timer scheduled by a timer runs in the same advance when it falls due before its end")
    func timersScheduledWhileAdvancing() {
        let clock = ManualClock()
        let log = Log()
        _ = clock.schedule(after: 1) {
            log.append("first")
            _ = clock.schedule(after: 1) { log.append("second") }
            _ = clock.schedule(after: 5) { log.append("too late") }
        }
        clock.advance(by: 2)
        #expect(log.all == ["first", "second"])
        #expect(clock.pendingTimers == 1)
    }

    @Test("a cancelled timer never runs and its work is released")
    func cancelledTimers() {
        let clock = ManualClock()
        let log = Log()
        let timer = clock.schedule(after: 1) { log.append("ran") }
        #expect(clock.pendingTimers == 1)
        clock.cancel(timer)
        #expect(clock.pendingTimers == 0)
        clock.advance(by: 10)
        #expect(log.all.isEmpty)
    }

    @Test("untilTimersPending returns once the code under test has scheduled its timers")
    func waitsForTimers() async {
        let clock = ManualClock()
        let scheduler = Task.detached {
            _ = clock.schedule(after: 1) {}
            _ = clock.schedule(after: 2) {}
        }
        await clock.untilTimersPending(2)
        #expect(clock.pendingTimers == 2)
        await scheduler.value
        await clock.untilTimersPending(1)  // already true: returns at once
    }
}
