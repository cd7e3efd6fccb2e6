import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore
@testable import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a ``RetryPolicy`` decision should be, for the table-driven tests.
enum InterceptorExpectedDecision: Sendable, Equatable, CustomStringConvertible {
    /// No retry.
    case none
    /// A backoff retry (a random delay in the attempt's range).
    case backoff
    /// A retry after exactly this many seconds.
    case after(TimeInterval)

    var description: String {
        switch self {
        case .none: return "no retry"
        case .backoff: return "backoff"
        case .after(let seconds): return "after \(seconds) s"
        }
    }
}

/// One row of a decision table.
struct InterceptorDecisionCase: Sendable, CustomTestStringConvertible {
    var method: HTTPMethod
    var error: any Error & Sendable
    var expected: InterceptorExpectedDecision
    var label: String

    var testDescription: String { "\(method) \(label) → \(expected)" }
}

/// A transport error of a fake adapter.
struct InterceptorFakeTransportFailure: TransportFailure {
    var requestNeverCompleted: Bool
}

@Suite("RetryPolicy", .generousTimeLimit)
struct RetryPolicyTests {
    /// 1994-11-06 08:49:37 GMT, the RFC 9110 example date.
    static let now = Date(timeIntervalSince1970: 784_111_777)
    static let url = URL(string: "https://stub.example/thing")!

    static func status(_ code: Int, retryAfter: String? = nil) -> KringleError {
        var headers = HTTPHeaders()
        if let retryAfter { headers.add(name: "Retry-After", value: retryAfter) }
        return .unacceptableStatusCode(
            code, Response(value: Data(), statusCode: code, headers: headers, body: Data(), url: url))
    }

    static func request(_ method: HTTPMethod) -> HTTPRequest {
        var request = HTTPRequest(url: url)
        request.method = method
        return request
    }

    /// Checks `decision` against `expected`, with backoff judged against attempt 1 of a
    /// policy whose base delay is 1 s (so between 0.5 and 1 s).
    static func check(
        _ decision: RetryDecision, _ expected: InterceptorExpectedDecision,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch (expected, decision) {
        case (.none, .doNotRetry):
            break
        case (.backoff, .retryAfter(let delay)):
            #expect((0.5...1).contains(delay), "backoff \(delay)", sourceLocation: sourceLocation)
        case (.after(let seconds), .retryAfter(let delay)):
            #expect(
                abs(delay - seconds) < 0.000_1, "delay \(delay), expected \(seconds)", sourceLocation: sourceLocation)
        default:
            Issue.record("expected \(expected), got \(decision)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - Methods and statuses

    static let statusCases: [InterceptorDecisionCase] = {
        var cases: [InterceptorDecisionCase] = []
        for method in [HTTPMethod.get, .head, .put, .delete, .options] {
            for code in [408, 429, 500, 502, 503, 504] {
                cases.append(.init(method: method, error: status(code), expected: .backoff, label: "\(code)"))
            }
        }
        for method in [HTTPMethod.post, .patch, "PURGE"] {
            for code in [408, 429, 503] {
                cases.append(.init(method: method, error: status(code), expected: .none, label: "\(code)"))
            }
        }
        for code in [300, 400, 401, 403, 404, 409, 422, 501, 505] {
            cases.append(.init(method: .get, error: status(code), expected: .none, label: "\(code)"))
        }
        return cases
    }()

    @Test(
        "by default only idempotent methods are retried, only on 408, 429, 500, 502, 503 and 504",
        arguments: statusCases)
    func statusTable(_ row: InterceptorDecisionCase) {
        let policy = RetryPolicy(baseDelay: 1, maximumDelay: 30)
        Self.check(
            policy.decision(for: Self.request(row.method), dueTo: row.error, attempt: 1, now: Self.now), row.expected)
    }

    // MARK: - Transport failures

    static let transportCases: [InterceptorDecisionCase] = [
        .init(method: .get, error: KringleError.timedOut(.total), expected: .backoff, label: "timedOut"),
        .init(
            method: .get, error: KringleError.transport(URLError(.timedOut)), expected: .backoff,
            label: "URLError.timedOut"),
        .init(
            method: .get, error: KringleError.transport(URLError(.networkConnectionLost)), expected: .backoff,
            label: "connection lost"),
        .init(
            method: .get, error: KringleError.transport(URLError(.cannotConnectToHost)), expected: .backoff,
            label: "refused"),
        .init(
            method: .get, error: KringleError.transport(URLError(.cannotFindHost)), expected: .backoff,
            label: "cannotFindHost"),
        .init(
            method: .get, error: KringleError.transport(URLError(.dnsLookupFailed)), expected: .backoff, label: "DNS"),
        .init(
            method: .put, error: KringleError.transport(URLError(.notConnectedToInternet)), expected: .backoff,
            label: "offline"),
        .init(
            method: .delete,
            error: KringleError.transport(InterceptorFakeTransportFailure(requestNeverCompleted: true)),
            expected: .backoff, label: "adapter error, never completed"),
        .init(
            method: .get, error: KringleError.transport(InterceptorFakeTransportFailure(requestNeverCompleted: false)),
            expected: .none, label: "adapter error, may have completed"),
        .init(method: .get, error: KringleError.transport(URLError(.badURL)), expected: .none, label: "badURL"),
        .init(
            method: .get, error: KringleError.transport(URLError(.cancelled)), expected: .none,
            label: "URLError.cancelled"),
        .init(
            method: .get, error: KringleError.transport(InterceptorTestError(label: "opaque")), expected: .none,
            label: "unknown error"),
        .init(method: .get, error: KringleError.invalidRequest("bad"), expected: .none, label: "invalidRequest"),
        .init(method: .get, error: KringleError.tooManyRedirects(url), expected: .none, label: "tooManyRedirects"),
        .init(method: .get, error: PromiseError.cancelled, expected: .none, label: "cancelled"),
        .init(
            method: .get, error: InterceptorTestError(label: "not a KringleError"), expected: .none,
            label: "foreign error"),
        .init(method: .post, error: KringleError.timedOut(.total), expected: .none, label: "timedOut"),
        .init(
            method: .post, error: KringleError.transport(URLError(.cannotConnectToHost)), expected: .none,
            label: "refused"),
    ]

    @Test("transport failures that mean the request never completed are retried", arguments: transportCases)
    func transportTable(_ row: InterceptorDecisionCase) {
        let policy = RetryPolicy(baseDelay: 1, maximumDelay: 30)
        Self.check(
            policy.decision(for: Self.request(row.method), dueTo: row.error, attempt: 1, now: Self.now), row.expected)
    }

    @Test("methods and statuses are configurable")
    func configurable() {
        let policy = RetryPolicy(retryableMethods: [.post], retryableStatusCodes: [418], baseDelay: 1, maximumDelay: 30)
        Self.check(
            policy.decision(for: Self.request(.post), dueTo: Self.status(418), attempt: 1, now: Self.now), .backoff)
        Self.check(policy.decision(for: Self.request(.post), dueTo: Self.status(503), attempt: 1, now: Self.now), .none)
        Self.check(policy.decision(for: Self.request(.get), dueTo: Self.status(418), attempt: 1, now: Self.now), .none)
        Self.check(
            policy.decision(for: Self.request(.post), dueTo: KringleError.timedOut(.total), attempt: 1, now: Self.now),
            .backoff
        )
    }

    // MARK: - Retry-After

    struct RetryAfterCase: Sendable, CustomTestStringConvertible {
        var value: String?
        var seconds: TimeInterval?
        var testDescription: String { "\(value.map { "\"\($0)\"" } ?? "nil") → \(seconds.map { "\($0)" } ?? "nil")" }
    }

    @Test(
        "Retry-After is read as delay-seconds or an HTTP-date (RFC 9110 §10.2.3)",
        arguments: [
            RetryAfterCase(value: "1", seconds: 1),
            RetryAfterCase(value: "0", seconds: 0),
            RetryAfterCase(value: " 120 ", seconds: 120),
            RetryAfterCase(value: "Sun, 06 Nov 1994 08:50:37 GMT", seconds: 60),  // IMF-fixdate
            RetryAfterCase(value: "Sunday, 06-Nov-94 08:50:37 GMT", seconds: 60),  // obsolete RFC 850
            RetryAfterCase(value: "Sun Nov  6 08:50:37 1994", seconds: 60),  // obsolete asctime
            RetryAfterCase(value: "Sun, 06 Nov 1994 08:48:37 GMT", seconds: 0),  // in the past
            RetryAfterCase(value: "-5", seconds: nil),
            RetryAfterCase(value: "soon", seconds: nil),
            RetryAfterCase(value: "", seconds: nil),
            RetryAfterCase(value: nil, seconds: nil),
        ])
    func retryAfterParsing(_ row: RetryAfterCase) {
        #expect(RetryAfter.seconds(row.value, now: Self.now) == row.seconds)
    }

    @Test(
        "a Retry-After on a retryable response sets the delay, capped at maximumDelay",
        arguments: [
            (503, "1", 30.0, InterceptorExpectedDecision.after(1)),
            (429, "7", 30.0, .after(7)),
            (503, "120", 30.0, .after(30)),
            (503, "1", 0.5, .after(0.5)),
            (503, "Sun, 06 Nov 1994 08:49:47 GMT", 30.0, .after(10)),
            (503, "Sun, 06 Nov 1994 09:49:37 GMT", 30.0, .after(30)),
            (503, "whenever", 30.0, .backoff),
            (404, "1", 30.0, .none),
        ])
    func retryAfterDecision(
        status: Int, retryAfter: String, maximumDelay: TimeInterval, expected: InterceptorExpectedDecision
    ) {
        let policy = RetryPolicy(baseDelay: 1, maximumDelay: maximumDelay)
        let decision = policy.decision(
            for: Self.request(.get), dueTo: Self.status(status, retryAfter: retryAfter), attempt: 1, now: Self.now)
        Self.check(decision, expected)
    }

    @Test("Retry-After does not make a POST retryable")
    func retryAfterOnPost() {
        let decision = RetryPolicy().decision(
            for: Self.request(.post), dueTo: Self.status(503, retryAfter: "1"), attempt: 1, now: Self.now)
        #expect(decision == .doNotRetry)
    }

    // MARK: - Backoff

    @Test("backoff doubles from the base delay, with equal jitter, up to the cap", arguments: 1...10)
    func backoffRange(attempt: Int) {
        let policy = RetryPolicy(baseDelay: 0.5, maximumDelay: 30)
        let exponential = min(30, 0.5 * pow(2, Double(attempt - 1)))
        let delays = (0..<200).map { _ in policy.backoff(attempt) }
        #expect(
            delays.allSatisfy { (exponential / 2...exponential).contains($0) },
            "attempt \(attempt): \(delays.min() ?? -1)…\(delays.max() ?? -1)")
        #expect(Set(delays).count > 1, "jitter spreads the delays")
    }

    @Test("backoff stays finite and capped for huge attempt numbers, and starts at the base for attempt 0")
    func backoffExtremes() {
        let policy = RetryPolicy(baseDelay: 0.2, maximumDelay: 4)
        for attempt in [64, 1_100, Int.max] {
            let delay = policy.backoff(attempt)
            #expect(delay.isFinite && (2...4).contains(delay), "attempt \(attempt): \(delay)")
        }
        #expect((0.1...0.2).contains(policy.backoff(0)))
    }

    @Test("the policy's public hook gives the same decision as the internal one")
    func publicHook() async throws {
        let policy = RetryPolicy(baseDelay: 1, maximumDelay: 30)
        let decision = try await policy.retry(Self.request(.get), dueTo: Self.status(503, retryAfter: "3"), attempt: 1)
            .outcome().get()
        #expect(decision == .retryAfter(3))
        let post = try await policy.retry(Self.request(.post), dueTo: Self.status(503), attempt: 1).outcome().get()
        #expect(post == .doNotRetry)
    }

    // MARK: - Against a real server

    /// A server that answers the first request with `first` and the others with 200, and
    /// counts the requests.
    private static func server(first: LoopbackServer.Response, requests: Counter) throws -> LoopbackServer {
        try LoopbackServer { _ in
            requests.increment() == 1 ? first : .json(#"{"ok": true}"#)
        }
    }

    struct RetryAfterWait: Sendable, CustomTestStringConvertible {
        var label: String
        var status: Int
        var retryAfter: String
        var maximumDelay: TimeInterval
        var expectedDelay: TimeInterval
        var testDescription: String { label }
    }

    /// The date a fresh `ManualClock` starts at, plus `seconds`, as an HTTP-date.
    private static func manualClockDate(plus seconds: TimeInterval) -> String {
        imfFixdate(ManualClock().now.addingTimeInterval(seconds))
    }

    /// An HTTP-date (RFC 9110 §5.6.7), as a server sends it.
    private static func imfFixdate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    @Test(
        "Retry-After is waited out exactly, on the client's clock, before the one retry",
        arguments: [
            RetryAfterWait(
                label: "503, Retry-After: 1", status: 503, retryAfter: "1", maximumDelay: 30, expectedDelay: 1),
            RetryAfterWait(
                label: "429, Retry-After: 10 capped at 0.5 s", status: 429, retryAfter: "10",
                maximumDelay: 0.5, expectedDelay: 0.5),
            RetryAfterWait(
                label: "503, Retry-After: an HTTP-date 3 s ahead", status: 503,
                retryAfter: manualClockDate(plus: 3), maximumDelay: 30, expectedDelay: 3),
        ])
    func retryAfter(_ row: RetryAfterWait) async throws {
        let requests = Counter()
        let server = try Self.server(
            first: LoopbackServer.Response.status(row.status).addingHeader("Retry-After", row.retryAfter),
            requests: requests)
        defer { server.shutdown() }
        let log = InterceptorEventLog()
        let clock = ManualClock()
        var configuration = NetworkClient.Configuration()
        configuration.interceptors = [RetryPolicy(baseDelay: 0.01, maximumDelay: row.maximumDelay, clock: clock)]
        configuration.logger = log
        configuration.clock = clock
        configuration.timeout = 0  // no deadline on the clock: the retry's delay is its only timer
        let client = NetworkClient(configuration: configuration, transport: URLSessionTransport())

        let call = client.get(server.clientEndpoint("/busy"))
        // The answer has arrived: only the retry's delay is left.
        #expect(await eventually { clock.pendingDelays == [row.expectedDelay] }, "\(clock.pendingDelays)")
        clock.advance(by: row.expectedDelay - 0.001)
        #expect(requests.value == 1, "no retry before the delay is up")
        clock.advance(by: 0.001)
        _ = try await call.outcome().get()
        #expect(requests.value == 2)
        #expect(log.retries.map(\.delay) == [row.expectedDelay])
        #expect(
            Result<Void, any Error>.failure(try #require(log.retries.first).reason).rejectedStatus == row.status,
            "\(log.retries)")
    }

    @Test("POST and PATCH are not retried by default", arguments: [HTTPMethod.post, .patch])
    func noRetryOfUnsafeMethods(method: HTTPMethod) async throws {
        let server = try LoopbackServer { _ in .status(503) }
        defer { server.shutdown() }
        var configuration = NetworkClient.Configuration()
        configuration.interceptors = [RetryPolicy(baseDelay: 0.001, maximumDelay: 0.01)]
        let client = NetworkClient(configuration: configuration, transport: URLSessionTransport())

        let outcome = await client.request(
            method, server.clientEndpoint("/orders"),
            body: .data(Data("{}".utf8), contentType: "application/json"), as: Data.self
        )
        .outcome()
        #expect(outcome.rejectedStatus == 503)
        #expect(server.statistics.requestsReceived == 1, "\(server.statistics)")
    }

    @Test("POST is retried when the policy is told to")
    func postRetriedWhenConfigured() async throws {
        let server = try LoopbackServer { _ in .status(503) }
        defer { server.shutdown() }
        var configuration = NetworkClient.Configuration()
        configuration.interceptors = [RetryPolicy(retryableMethods: [.post], baseDelay: 0.001, maximumDelay: 0.01)]
        configuration.maxRetryCount = 2
        let client = NetworkClient(configuration: configuration, transport: URLSessionTransport())

        let outcome = await client.post(RequestBody.form([("a", "1")]), to: server.clientEndpoint("/orders"))
            .outcome()
        #expect(outcome.rejectedStatus == 503)
        #expect(server.statistics.requestsReceived == 3, "\(server.statistics)")
    }

    @Test("an attempt that times out (connecting, here) is retried, then fails with timedOut")
    func timeoutRetried() async {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        transport.stub(.get, "/slow", with: .failure(KringleError.timedOut(.connect), delay: 0.05))
        var configuration = NetworkClient.Configuration()
        configuration.timeout = 0  // no deadline on the clock: each round is the stub's or a backoff
        configuration.interceptors = [RetryPolicy(baseDelay: 0.001, maximumDelay: 0.01)]
        configuration.maxRetryCount = 2
        configuration.clock = clock
        let client = NetworkClient(configuration: configuration, transport: transport)

        // Each round fires the stub's failure (0.05 s), or the backoff before the next one.
        let outcome = await client.get(ClientTestEndpoint(baseURL: interceptorStubBase, path: "/slow"))
            .outcome(advancing: clock, by: 0.05)
        guard case KringleError.timedOut? = outcome.failure else {
            Issue.record("expected timedOut, got \(outcome)")
            return
        }
        #expect(transport.requests.count == 3, "three attempts, each failing after 0.05 s")
        #expect(clock.uptimeNanoseconds < 5_000_000_000)
    }

    @Test("a refused connection is retried, then fails with the transport error")
    func refusedConnectionRetried() async throws {
        let endpoint = refusedEndpoint("/gone")
        let log = InterceptorEventLog()
        var configuration = NetworkClient.Configuration()
        configuration.interceptors = [RetryPolicy(baseDelay: 0.005, maximumDelay: 0.02)]
        configuration.maxRetryCount = 2
        configuration.logger = log
        let client = NetworkClient(configuration: configuration, transport: URLSessionTransport())

        let outcome = await client.get(endpoint).outcome()
        guard case KringleError.transport(let underlying)? = outcome.failure else {
            Issue.record("expected a transport failure, got \(outcome)")
            return
        }
        #expect((underlying as? any TransportFailure)?.requestNeverCompleted == true, "\(underlying)")
        #expect(log.sent.count == 3, "three attempts went to the transport")
        #expect(log.retries.map(\.attempt) == [1, 2])
    }
}
