import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// 64 loops against a server that allows 50 requests per second, on a clock the test moves
/// from one timer to the next: the throughput the throttle reaches, whatever the machine's
/// speed.
@Suite("Host throttle, simulated", .generousTimeLimit)
struct ThrottleSimulationTests {
    /// A token bucket of 50, refilled at 50 per second on `clock`, answering above it with
    /// `429`, `Retry-After: 1` and `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers).
    final class Bucket: Sendable {
        private struct State {
            var tokens = 50.0
            var refilled: UInt64 = 0
            var statuses: [Int] = []
        }
        private let state = Box(State())
        let clock: ManualClock

        init(clock: ManualClock) {
            self.clock = clock
        }

        func answer() -> StubTransport.Stub {
            let now = clock.uptimeNanoseconds
            let (allowed, remaining) = state.withLock { state in
                state.tokens = min(50, state.tokens + Double(now - state.refilled) / 1e9 * 50)
                state.refilled = now
                let allowed = state.tokens >= 1
                if allowed { state.tokens -= 1 }
                state.statuses.append(allowed ? 200 : 429)
                return (allowed, Int(state.tokens))
            }
            var fields = [
                ("RateLimit-Policy", #""default";q=50;w=1"#), ("RateLimit", #""default";r=\#(remaining);t=1"#),
            ]
            if !allowed { fields.append(("Retry-After", "1")) }
            return budgetStub(allowed ? 200 : 429, fields)
        }

        var statuses: [Int] { state.value.statuses }
    }

    @Test("64 loops: at most 1% of requests get a 429, and the throughput is 50 per second within 10%")
    func throughput() async throws {
        let clock = ManualClock()
        let bucket = Bucket(clock: clock)
        let transport = StubTransport(clock: clock)
        transport.stub { _ in bucket.answer() }
        // No deadline and no retries: each loop's one timer is its turn at the host.
        let client = budgetClient(transport, clock: clock, retries: nil) {
            $0.throttle = HostThrottle()
            $0.timeout = 0
        }
        let target = 500
        let loops = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        while bucket.statuses.count < target {
                            _ = await client.get(BudgetEndpoint()).outcome()
                        }
                    }
                }
            }
        }
        // Every loop waits for its turn on a timer: move the clock to the next one.
        while bucket.statuses.count < target {
            let quiet = await eventually(within: 30) {
                bucket.statuses.count >= target || clock.pendingTimers == 64
            }
            try #require(quiet, "the loops stopped short: \(clock.pendingTimers) timers")
            if let next = clock.pendingDelays.first { clock.advance(by: next) }
        }
        let elapsed = clock.elapsed
        clock.advance(by: 3_600)  // lets the loops' last turns go
        await loops.value

        let statuses = bucket.statuses.prefix(target)
        let refused = statuses.filter { $0 == 429 }.count
        #expect(refused <= target / 100, "\(refused) of \(target) refused")
        let rate = Double(target - 1) / elapsed
        #expect((45...55).contains(rate), "\(rate) requests per second")
    }
}
