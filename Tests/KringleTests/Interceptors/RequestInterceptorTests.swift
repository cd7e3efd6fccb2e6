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

@Suite("Request interceptors: adapt, retry and the retry limit", .generousTimeLimit)
struct RequestInterceptorTests {
    private static func client(
        _ transport: any Transport,
        interceptors: [any RequestInterceptor],
        maxRetryCount: Int? = 3,
        logger: (any KringleLogger)? = nil
    ) -> NetworkClient {
        interceptedClient(transport, interceptors: interceptors, maxRetryCount: maxRetryCount, logger: logger)
    }

    private static let stubEndpoint = ClientTestEndpoint(baseURL: interceptorStubBase, path: "/thing")

    // MARK: - adapt

    @Test("adapt runs every interceptor, in order, and the transport gets the result")
    func adaptOrder() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/thing", with: .init(status: 200))
        let client = Self.client(transport, interceptors: ["A", "B", "C"].map { InterceptorTagger(name: $0) })

        _ = try await client.get(Self.stubEndpoint).outcome().get()
        #expect(transport.requests.map { $0.headers["X-Adapted-By"] } == ["A,B,C"])
    }

    @Test("the default hooks pass the request on unchanged and never retry")
    func defaultHooks() async throws {
        let request = HTTPRequest(url: clientURL("https://stub.example/x?y=1"))
        let adapted = try await InterceptorDefaultsOnly().adapt(request).outcome().get()
        #expect(adapted == request)
        let decision = try await InterceptorDefaultsOnly()
            .retry(request, dueTo: KringleError.timedOut(.total), attempt: 1).outcome().get()
        #expect(decision == .doNotRetry)

        let transport = StubTransport()
        transport.stub(.get, "/thing", with: .init(status: 503))
        let outcome = await Self.client(transport, interceptors: [InterceptorDefaultsOnly()])
            .get(Self.stubEndpoint).outcome()
        #expect(outcome.rejectedStatus == 503)
        #expect(transport.requests.count == 1)
    }

    @Test("an interceptor that changes nothing: the transport sees the same requests as without one, and no retry")
    func passThroughSendsTheSameRequests() async {
        /// The requests a client with `interceptors` sends for a POST that is redirected
        /// (302) to a GET answered with 500, as method, URL, headers and body.
        func sent(interceptors: [any RequestInterceptor]) async -> [String] {
            let transport = StubTransport()
            transport.stub(.post, "/cats", with: StubTransport.Stub(status: 302, headers: ["Location": "/home"]))
            transport.stub(.get, "/home", with: StubTransport.Stub(status: 500))
            var configuration = NetworkClient.Configuration()
            configuration.interceptors = interceptors
            let client = NetworkClient(configuration: configuration, transport: transport)
            let endpoint = ClientTestEndpoint(
                baseURL: clientURL("http://stub.example"), path: "/cats", headers: ["X-Note": "kept"])
            let outcome = await client.post(RequestBody.form([("name", "Tom")]), to: endpoint).outcome()
            #expect(outcome.rejectedStatus == 500, "\(interceptors.count) interceptors")
            return transport.requests.map { request in
                let body = request.body.map { String(decoding: $0, as: UTF8.self) } ?? ""
                return "\(request.method) \(request.url.absoluteString) \(request.headers) \(body)"
            }
        }
        let without = await sent(interceptors: [])
        #expect(without.count == 2, "one redirect, no retry")
        #expect(await sent(interceptors: [InterceptorDefaultsOnly()]) == without)
    }

    @Test("a rejected adapt fails the call with its error, and nothing is sent")
    func adaptRejection() async {
        struct Refusing: RequestInterceptor {
            func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest> {
                Promise(error: InterceptorTestError(label: "no signing key"))
            }
        }
        let transport = StubTransport()
        transport.stub(.get, "/thing", with: .init(status: 200))
        let after = InterceptorTagger(name: "after")
        let outcome = await Self.client(transport, interceptors: [Refusing(), after]).get(Self.stubEndpoint).outcome()
        #expect(outcome.failure as? InterceptorTestError == InterceptorTestError(label: "no signing key"))
        #expect(transport.requests.isEmpty)
    }

    // MARK: - retry

    @Test("retry asks the interceptors in order and the first that asks for a retry wins")
    func firstRetryWins() async {
        let transport = StubTransport()
        transport.stub(.get, "/thing", with: .init(status: 503))
        let never = InterceptorTagger(name: "A")
        let firstOnly = InterceptorTagger(name: "B") { attempt, _ in attempt == 1 ? .retry : .doNotRetry }
        let always = InterceptorTagger(name: "C") { _, _ in .retryAfter(0.01) }
        let log = InterceptorEventLog()
        let client = Self.client(transport, interceptors: [never, firstOnly, always], maxRetryCount: 3, logger: log)

        let outcome = await client.get(Self.stubEndpoint).outcome()
        #expect(outcome.rejectedStatus == 503)
        #expect(transport.requests.count == 4)
        #expect(never.retryLog.value == ["A#1", "A#2", "A#3"])
        #expect(firstOnly.retryLog.value == ["B#1", "B#2", "B#3"])
        #expect(always.retryLog.value == ["C#2", "C#3"], "C is not asked when B has asked for a retry")
        #expect(log.retries.map(\.delay) == [0, 0.01, 0.01], "B's immediate retry, then C's delayed ones")
        #expect(log.retries.map(\.attempt) == [1, 2, 3])
    }

    @Test("a rejected retry hook fails the call with its error")
    func retryRejection() async {
        struct Failing: RequestInterceptor {
            func retry(_ request: HTTPRequest, dueTo error: any Error, attempt: Int) -> Promise<RetryDecision> {
                Promise(error: InterceptorTestError(label: "gave up"))
            }
        }
        let transport = StubTransport()
        transport.stub(.get, "/thing", with: .init(status: 500))
        let outcome = await Self.client(transport, interceptors: [Failing()]).get(Self.stubEndpoint).outcome()
        #expect(outcome.failure as? InterceptorTestError == InterceptorTestError(label: "gave up"))
        #expect(transport.requests.count == 1)
    }

    @Test("retry is asked only once the whole response, body included, has arrived")
    func retryAfterWholeResponse() async throws {
        let body = patternedData(count: 200_000)
        let server = try LoopbackServer { _ in
            LoopbackServer.Response.data(body, status: 503).withBehavior(.chunked(chunkSize: 1_000))
        }
        defer { server.shutdown() }
        let bodies = Box<[Data]>([])
        let inspector = InterceptorTagger(name: "inspector") { _, error in
            if case KringleError.unacceptableStatusCode(_, let response) = error {
                bodies.withLock { $0.append(response.body) }
            }
            return .retry
        }
        let client = Self.client(URLSessionTransport(), interceptors: [inspector], maxRetryCount: 1)

        let outcome = await client.get(server.clientEndpoint("/big")).outcome()
        #expect(outcome.rejectedStatus == 503)
        #expect(bodies.value.count == 1)
        #expect(bodies.value.first == body, "the retry hook saw the complete body")
        #expect(server.statistics.requestsReceived == 2)
    }

    @Test("a retried request is adapted again, so it carries a token refreshed in between")
    func retriedRequestIsReadapted() async throws {
        struct Token: RequestInterceptor {
            let current = Box("first")
            func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest> {
                var request = request
                request.headers["Authorization"] = "Bearer \(current.value)"
                return Promise(request)
            }
            func retry(_ request: HTTPRequest, dueTo error: any Error, attempt: Int) -> Promise<RetryDecision> {
                current.withLock { $0 = "second" }
                return Promise(.retry)
            }
        }
        let seen = Box<[String]>([])
        let server = try LoopbackServer { request in
            let authorization = request.header("Authorization") ?? "-"
            seen.withLock { $0.append(authorization) }
            return authorization == "Bearer second" ? .json(#"{"ok": true}"#) : .status(503)
        }
        defer { server.shutdown() }
        let client = Self.client(URLSessionTransport(), interceptors: [Token(), InterceptorTagger(name: "tag")])

        _ = try await client.get(server.clientEndpoint("/private")).outcome().get()
        #expect(seen.value == ["Bearer first", "Bearer second"])
    }

    // MARK: - the limit

    @Test("maxRetryCount is 3 by default")
    func defaultLimit() {
        #expect(NetworkClient.Configuration().maxRetryCount == 3)
    }

    @Test(
        "maxRetryCount caps the retries: the server sees exactly limit + 1 requests",
        arguments: [(0, 1), (1, 2), (3, 4), (5, 6)])
    func limitHonoured(limit: Int, expectedRequests: Int) async throws {
        let server = try LoopbackServer { _ in .status(503) }
        defer { server.shutdown() }
        let client = Self.client(
            URLSessionTransport(),
            interceptors: [RetryPolicy(baseDelay: 0.002, maximumDelay: 0.01)],
            maxRetryCount: limit
        )

        let outcome = await client.get(server.clientEndpoint("/down")).outcome()
        #expect(outcome.rejectedStatus == 503, "the last attempt's failure: \(outcome)")
        #expect(server.statistics.requestsReceived == expectedRequests, "\(server.statistics)")
    }

    @Test("a nil limit retries until the interceptor stops by itself")
    func unlimitedRetries() async throws {
        let server = try LoopbackServer { _ in .status(502) }
        defer { server.shutdown() }
        let stopper = InterceptorTagger(name: "stopper") { attempt, _ in attempt < 12 ? .retry : .doNotRetry }
        // No budget: its floor of 10 retries per window would stop the 11th before the interceptor.
        let client = interceptedClient(
            URLSessionTransport(), interceptors: [stopper], maxRetryCount: nil, logger: nil, retryBudget: nil)

        let outcome = await client.get(server.clientEndpoint("/down")).outcome()
        #expect(outcome.rejectedStatus == 502)
        #expect(server.statistics.requestsReceived == 12, "\(server.statistics)")
        #expect(stopper.retryLog.value == (1...12).map { "stopper#\($0)" })
    }

    @Test("50 concurrent calls each get their own retry counter")
    func perCallCounters() async throws {
        let transport = StubTransport()
        let hits = Box<[String: Int]>([:])
        transport.stub { request in
            let path = request.url.path
            let count = hits.withLock { hits -> Int in
                hits[path, default: 0] += 1
                return hits[path, default: 0]
            }
            // /flaky/… fails twice then works; /down/… always fails.
            let works = path.hasPrefix("/flaky/") && count > 2
            return .init(status: works ? 200 : 503, delay: Double.random(in: 0.0005...0.003))
        }
        let attempts = Box<[String: [Int]]>([:])
        struct AttemptRecorder: RequestInterceptor {
            let attempts: Box<[String: [Int]]>
            func retry(_ request: HTTPRequest, dueTo error: any Error, attempt: Int) -> Promise<RetryDecision> {
                attempts.withLock { $0[request.url.path, default: []].append(attempt) }
                return Promise(.doNotRetry)
            }
        }
        // Each call's own counter is under test, not the budget across calls (which would
        // deny most of these 100 retries to one host: see RetryBudgetTests).
        let client = interceptedClient(
            transport,
            interceptors: [AttemptRecorder(attempts: attempts), RetryPolicy(baseDelay: 0.001, maximumDelay: 0.004)],
            maxRetryCount: 2, logger: nil, retryBudget: nil
        )

        let calls = (0..<50).map { index in
            client.get(
                ClientTestEndpoint(
                    baseURL: interceptorStubBase, path: index.isMultiple(of: 2) ? "/flaky/\(index)" : "/down/\(index)"))
        }
        let outcomes = try await Promise<[Result<Void, any Error>]>.allSettled(calls).outcome().get()

        for (index, outcome) in outcomes.enumerated() {
            if index.isMultiple(of: 2) {
                #expect(throws: Never.self, "call \(index)") { try outcome.get() }
            } else {
                #expect(outcome.rejectedStatus == 503, "call \(index)")
            }
        }
        let finalHits = hits.value
        #expect(finalHits.count == 50)
        #expect(finalHits.values.allSatisfy { $0 == 3 }, "every call made exactly 3 attempts: \(finalHits)")
        #expect(transport.requests.count == 150)
        let perPath = attempts.value
        #expect(perPath.count == 50)
        #expect(perPath.values.allSatisfy { $0 == [1, 2] }, "attempt numbers restart for every call: \(perPath)")
    }

    // MARK: - cancellation during a retry delay

    @Test("cancelling the call's promise during a Retry-After delay cancels the retry: no second request")
    func cancelDuringDelay() async throws {
        let server = try LoopbackServer { _ in LoopbackServer.Response.status(503).addingHeader("Retry-After", "2") }
        defer { server.shutdown() }
        let canceller = InterceptorDelayedCanceller(after: 0.3) { server.statistics.requestsReceived }
        let client = Self.client(URLSessionTransport(), interceptors: [RetryPolicy()], logger: canceller.logger())

        let call = client.get(server.clientEndpoint("/busy"))
        let settledAtCancel = Box<Bool?>(nil)
        canceller.cancel.withLock {
            $0 = {
                call.cancel(); settledAtCancel.withLock { $0 = !call.isPending }
            }
        }

        _ = try await canceller.done.outcome().get()
        #expect(canceller.requestsAtCancel.value == 1, "the cancellation landed inside the 2 s delay")
        #expect(settledAtCancel.value == true, "the call settles at once, not after the delay")
        #expect(await call.outcome().isCancellation)
        #expect(
            await !server.awaitStatistics(within: 2.5) { $0.requestsReceived >= 2 },
            "no retry after the cancelled delay: \(server.statistics)")
    }

    @Test("cancelling a promise chained from the call during a backoff delay cancels the retry")
    func cancelChainedDuringDelay() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/thing", with: .init(status: 503, headers: ["Retry-After": "3"]))
        let canceller = InterceptorDelayedCanceller(after: 0.2) { transport.requests.count }
        let client = Self.client(transport, interceptors: [RetryPolicy()], logger: canceller.logger())

        let chained = client.get(Self.stubEndpoint).map { "done" }
        canceller.cancel.withLock { $0 = { chained.cancel() } }

        _ = try await canceller.done.outcome().get()
        #expect(canceller.requestsAtCancel.value == 1, "the cancellation landed inside the 3 s delay")
        #expect(await chained.outcome().isCancellation)
        let retried = await eventually(within: 3.5) { transport.requests.count > 1 }
        #expect(!retried, "no retry after the cancelled delay: \(transport.requests.count) requests")
    }

    @Test("a cancellation that arrives just as the retry is decided still cancels the retry")
    func cancelAsRetryIsDecided() async throws {
        let server = try LoopbackServer { _ in LoopbackServer.Response.status(503).addingHeader("Retry-After", "1") }
        defer { server.shutdown() }
        let target = Box<Promise<Void>?>(nil)
        let stored = DispatchSemaphore(value: 0)
        let cancelledInLogger = Counter()
        // The logger hears of the retry on the thread that decided it, before the delay is
        // set up: cancelling there is the tightest race a caller on another thread can hit.
        let log = InterceptorEventLog { event in
            guard case .retry = event else { return }
            // The first answer may come before the test has stored the call (a fast loopback):
            // wait for it, or the first retry would go uncancelled.
            if target.value == nil { _ = stored.wait(timeout: .now() + 30) }
            guard let call = target.value else { return }
            // Counted first: the test reads the count as soon as the cancellation settles it.
            cancelledInLogger.increment()
            call.cancel()
        }
        let client = Self.client(URLSessionTransport(), interceptors: [RetryPolicy()], logger: log)

        let call = client.get(server.clientEndpoint("/busy"))
        target.withLock { $0 = call }
        stored.signal()
        #expect(await call.outcome().isCancellation)
        #expect(cancelledInLogger.value >= 1)
        #expect(
            await !server.awaitStatistics(within: 2.5) { $0.requestsReceived >= 2 },
            "the cancelled call must not send its retry: \(server.statistics)")
    }
}
