import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A call with a 2 s deadline and a retry policy of 5 settles by its deadline, whatever a
/// real server on 127.0.0.1 does, on both transports. Where how long an attempt takes decides
/// how the call ends (resets, retried until the deadline denies one), the deadline and the
/// backoff run on a clock the test moves.
@Suite("Call deadlines against a server", .generousTimeLimit)
struct CallDeadlineServerTests {
    enum Misbehaviour: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Holds every request without answering.
        case slowAnswers
        /// Answers 503 with `Retry-After: 10`.
        case retryAfterTen

        var response: LoopbackServer.Response {
            switch self {
            case .slowAnswers: return LoopbackServer.Response.json("{}").heldUntilHangUp()
            case .retryAfterTen: return LoopbackServer.Response.status(503).addingHeader("Retry-After", "10")
            }
        }

        var testDescription: String { rawValue }
    }

    /// The deadline, and what a timer may add to it on a loaded machine (a bound for a test
    /// gone wrong, far below the 10 s a `Retry-After` or a held answer would take).
    static let deadline: TimeInterval = 2
    static let slack: TimeInterval = 3
    static let timing = DispatchQueue(label: "call-deadline-tests.timing")

    @Test(
        "a 2 s deadline with 5 retries settles by 2 s + slack: slow answers, 503 with Retry-After: 10",
        arguments: TransportUnderTest.allCases, Misbehaviour.allCases)
    func settlesByTheDeadline(_ subject: TransportUnderTest, misbehaviour: Misbehaviour) async throws {
        let requests = Counter()
        let server = try LoopbackServer { _ in
            requests.increment()
            return misbehaviour.response
        }
        defer { server.shutdown() }
        let log = InterceptorEventLog()
        let client = subject.client {
            $0.interceptors = [RetryPolicy()]
            $0.maxRetryCount = 5
            $0.logger = log
        }

        // Timed from the call to a handler on a queue of the test's own: an `await` resumes
        // on the cooperative pool, which the rest of the suite may keep busy for seconds.
        let settledAt = Box<ContinuousClock.Instant?>(nil)
        let start = ContinuousClock.now
        let call = client.get(server.clientEndpoint("/flaky"), timeout: Self.deadline)
        let outcome = await call.always(on: Self.timing) { settledAt.withLock { $0 = ContinuousClock.now } }
            .outcome()
        let elapsed = try #require(settledAt.value.map { ($0 - start) / .seconds(1) })

        #expect(elapsed < Self.deadline + Self.slack, "settled after \(elapsed) s")
        switch misbehaviour {
        case .slowAnswers:
            guard case .timedOut(.total)? = outcome.kringleError else {
                Issue.record("expected the call's deadline, got \(outcome)")
                return
            }
            #expect(elapsed >= Self.deadline - 0.01, "not before the deadline: \(elapsed) s")
            #expect(requests.value == 1)
        case .retryAfterTen:
            #expect(outcome.rejectedStatus == 503, "\(outcome)")
            #expect(requests.value == 1)
            #expect(log.denials == [.deadline(delay: 10, timeLeft: log.denialTimeLeft ?? 0)])
        }
    }

    @Test(
        "connections reset again and again: retried with backoff until the next would pass the 2 s deadline",
        arguments: TransportUnderTest.allCases)
    func resetsUntilTheDeadline(_ subject: TransportUnderTest) async throws {
        let requests = Counter()
        let server = try LoopbackServer { _ in
            requests.increment()
            return LoopbackServer.Response.status(200).withBehavior(.resetWithoutResponse)
        }
        defer { server.shutdown() }
        let log = InterceptorEventLog()
        // On the test's clock: in real time, a machine slow to report a reset (a busy
        // FoundationNetworking, ThreadSanitizer) spends the deadline inside an attempt.
        let clock = ManualClock()
        let client = subject.client {
            $0.clock = clock
            $0.interceptors = [RetryPolicy()]
            $0.maxRetryCount = 5
            $0.logger = log
        }

        let outcome = await clock.runRetries(
            of: client.get(server.clientEndpoint("/flaky"), timeout: Self.deadline), log: log)

        #expect(outcome.kringleError?.caseName == "transport", "\(outcome)")
        #expect(clock.elapsed < Self.deadline)
        #expect(requests.value >= 2, "retried with backoff within the deadline")
        #expect(requests.value == log.retries.count + 1)
        #expect(log.denials.count == 1, "\(log.denials)")
    }
}

extension CallDeadlineServerTests {
    @Test(
        "the call's timeout beats the endpoint's, which beats the client's: the narrowest, 0.3 s, ends a held answer",
        arguments: TransportUnderTest.allCases, CallDeadlineTests.Scope.allCases)
    func narrowestScopeWins(_ subject: TransportUnderTest, scope: CallDeadlineTests.Scope) async throws {
        let server = try LoopbackServer { _ in .json("{}").heldUntilHangUp() }
        defer { server.shutdown() }
        let short: TimeInterval = 0.3
        let client = subject.client { $0.timeout = scope == .client ? short : 30 }
        var endpoint = BudgetEndpoint(baseURL: server.baseURL, path: "/held")
        endpoint.timeout = scope == .endpoint ? short : scope == .call ? 20 : nil
        let settledAt = Box<ContinuousClock.Instant?>(nil)
        let start = ContinuousClock.now
        let outcome = await client.get(endpoint, timeout: scope == .call ? short : nil)
            .always(on: Self.timing) { settledAt.withLock { $0 = ContinuousClock.now } }
            .outcome()
        let elapsed = try #require(settledAt.value.map { ($0 - start) / .seconds(1) })
        guard case .timedOut(.total)? = outcome.kringleError else {
            Issue.record("expected the deadline, got \(outcome)")
            return
        }
        #expect(elapsed >= short - 0.01 && elapsed < short + Self.slack, "settled after \(elapsed) s")
    }
}

extension InterceptorEventLog {
    /// The time left that the first retry denied by the deadline reported.
    fileprivate var denialTimeLeft: TimeInterval? {
        guard case .deadline(_, let timeLeft)? = denials.first else { return nil }
        return timeLeft
    }
}
