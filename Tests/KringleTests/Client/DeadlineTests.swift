import Foundation
import Kringle
import KringleTesting
import Testing

@testable import KringleCore

/// The one value the time left travels as, and its conversions, on a clock the test moves.
@Suite struct DeadlineTests {
    @Test(
        "a timeout becomes a deadline that far from now; none when it sets no limit",
        arguments: [
            (0.25, 250_000_000), (1e-9, 1), (60, 60_000_000_000), (0, nil), (-1, nil), (.nan, nil),
            (.infinity, nil), (1e300, nil),
        ] as [(TimeInterval, UInt64?)])
    func madeFromATimeout(seconds: TimeInterval, nanosecondsFromNow: UInt64?) {
        let clock = ManualClock()
        clock.advance(by: 3)
        let deadline = Deadline(after: seconds, on: clock)
        #expect(deadline?.uptimeNanoseconds == nanosecondsFromNow.map { 3_000_000_000 + $0 })
    }

    @Test(
        "libcurl's milliseconds are rounded up, capped, and absent once the time has run out",
        arguments: [
            (1, 1), (999_999, 1), (1_000_000, 1), (1_000_001, 2), (250_000_000, 250), (0, nil),
            (UInt64.max, Int(Int32.max)),
        ] as [(UInt64, Int?)])
    func milliseconds(nanosecondsLeft: UInt64, milliseconds: Int?) {
        let clock = ManualClock()
        #expect(Deadline(uptimeNanoseconds: nanosecondsLeft).milliseconds(on: clock) == milliseconds)
    }

    @Test("the time left shrinks as the clock moves, and stays at zero once passed")
    func timeLeft() throws {
        let clock = ManualClock()
        let deadline = try #require(Deadline(after: 2, on: clock))
        #expect(deadline.timeLeft(on: clock) == 2)
        #expect(!deadline.hasPassed(on: clock))
        clock.advance(by: 1.5)
        #expect(deadline.timeLeft(on: clock) == 0.5)
        #expect(deadline.nanosecondsLeft(on: clock) == 500_000_000)
        clock.advance(by: 0.5)
        #expect(deadline.hasPassed(on: clock), "at the deadline itself, the time is up")
        clock.advance(by: 1)
        #expect(deadline.timeLeft(on: clock) == 0)
        #expect(deadline.milliseconds(on: clock) == nil)
    }

    @Test("deadlines order by time")
    func ordering() {
        #expect(Deadline(uptimeNanoseconds: 1) < Deadline(uptimeNanoseconds: 2))
        #expect(Deadline(uptimeNanoseconds: 2) == Deadline(uptimeNanoseconds: 2))
    }
}
