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

/// Every completion each callback call received, by call number.
final class InterceptorCompletionLedger: Sendable {
    private struct State {
        var results: [Int: [String]] = [:]
    }

    private let state = Box(State())
    private let expectedCalls: Int
    /// Fulfilled once every call has completed at least once.
    let allCompleted = Promise<Void>.pending()

    init(expectedCalls: Int) {
        self.expectedCalls = expectedCalls
    }

    func record(_ call: Int, _ result: NetworkResult) {
        let summary: String
        switch result {
        case .success(let response): summary = "success \(response.statusCode)"
        case .failure(let error):
            summary = "failure \(Result<Void, any Error>.failure(error).rejectedStatus.map(String.init) ?? "\(error)")"
        case .cancelled: summary = "cancelled"
        }
        let complete = state.withLock { state -> Bool in
            state.results[call, default: []].append(summary)
            return state.results.count == expectedCalls
        }
        if complete { allCompleted.fulfill(()) }
    }

    var results: [Int: [String]] {
        state.withLock { $0.results }
    }
}

@Suite("Callback API: sendRequest and Disposable", .generousTimeLimit)
struct CallbackAPITests {
    private static func client(
        _ transport: any Transport,
        interceptors: [any RequestInterceptor] = [],
        maxRetryCount: Int? = 3,
        logger: (any KringleLogger)? = nil
    ) -> NetworkClient {
        interceptedClient(transport, interceptors: interceptors, maxRetryCount: maxRetryCount, logger: logger)
    }

    /// Sends `request` and returns the first completion, counting all of them in `count`.
    private static func send(
        _ client: NetworkClient,
        _ request: HTTPRequest,
        count: Counter = Counter()
    ) async throws -> (NetworkResult, Disposable) {
        let done = Promise<NetworkResult>.pending()
        let disposable = client.sendRequest(request) { result in
            count.increment()
            done.fulfill(result)
        }
        return (try await done.outcome().get(), disposable)
    }

    private static let queueKey = DispatchSpecificKey<Int>()

    @Test(
        "a request goes through the interceptors and retries; completion gets the success once, off the caller's queue")
    func success() async throws {
        let transport = StubTransport()
        let attempts = Counter()
        transport.stub { _ in
            attempts.increment() <= 2
                ? .init(status: 503) : .init(status: 200, headers: ["X-Id": "7"], body: Data("purr".utf8))
        }
        let client = Self.client(
            transport, interceptors: [InterceptorTagger(name: "T"), RetryPolicy(baseDelay: 0.001, maximumDelay: 0.01)])
        let count = Counter()
        let onCallerQueue = Box<Bool?>(nil)
        let done = Promise<NetworkResult>.pending()
        let callerQueue = DispatchQueue(label: "interceptor.callback.caller")
        callerQueue.setSpecific(key: Self.queueKey, value: 1)
        let disposable = Box<Disposable?>(nil)
        callerQueue.async {
            let handle = client.sendRequest(HTTPRequest(url: clientURL("https://stub.example/cat"))) { result in
                onCallerQueue.withLock { $0 = DispatchQueue.getSpecific(key: Self.queueKey) != nil }
                count.increment()
                done.fulfill(result)
            }
            disposable.withLock { $0 = handle }
        }

        let result = try await done.outcome().get()
        guard case .success(let response) = result else {
            Issue.record("expected success, got \(result)")
            return
        }
        #expect(response.statusCode == 200)
        #expect(response.value == Data("purr".utf8))
        #expect(response.headers["X-Id"] == "7")
        #expect(transport.requests.count == 3)
        #expect(transport.requests.allSatisfy { $0.headers["X-Adapted-By"] == "T" })
        #expect(onCallerQueue.value == false, "completion runs on a queue of the library's")

        // Disposing after completion changes nothing.
        #expect(await eventually { disposable.value != nil })
        let handle = try #require(disposable.value)
        #expect(!handle.isDisposed)
        handle.dispose()
        handle.dispose()
        #expect(handle.isDisposed)
        await allowTimeForAWrongEvent()
        #expect(count.value == 1)
    }

    @Test("a failure the interceptors do not retry reaches the completion once")
    func failureNotRetried() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/missing", with: .init(status: 404, body: Data("no such cat".utf8)))
        let client = Self.client(transport, interceptors: [RetryPolicy(baseDelay: 0.001, maximumDelay: 0.01)])
        let count = Counter()

        let (result, _) = try await Self.send(
            client, HTTPRequest(url: clientURL("https://stub.example/missing")), count: count)
        guard case .failure(KringleError.unacceptableStatusCode(404, let response)) = result else {
            Issue.record("expected a 404 failure, got \(result)")
            return
        }
        #expect(response.body == Data("no such cat".utf8))
        #expect(transport.requests.count == 1)
        await allowTimeForAWrongEvent()
        #expect(count.value == 1)
    }

    @Test("a retryable failure past the retry limit reaches the completion once")
    func failurePastLimit() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/busy", with: .init(status: 503))
        let client = Self.client(
            transport, interceptors: [RetryPolicy(baseDelay: 0.001, maximumDelay: 0.01)], maxRetryCount: 2)
        let count = Counter()

        let (result, _) = try await Self.send(
            client, HTTPRequest(url: clientURL("https://stub.example/busy")), count: count)
        #expect(result.result.rejectedStatus == 503, "\(result)")
        #expect(transport.requests.count == 3)
        await allowTimeForAWrongEvent()
        #expect(count.value == 1)
    }

    @Test("an interceptor's own error reaches the completion")
    func interceptorError() async throws {
        struct Refusing: RequestInterceptor {
            func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest> {
                Promise(error: InterceptorTestError(label: "offline mode"))
            }
        }
        let transport = StubTransport()
        let (result, _) = try await Self.send(
            Self.client(transport, interceptors: [Refusing()]),
            HTTPRequest(url: clientURL("https://stub.example/x")))
        #expect(result.result.failure as? InterceptorTestError == InterceptorTestError(label: "offline mode"))
        #expect(transport.requests.isEmpty)
    }

    struct BuildFailureCase: Sendable, CustomTestStringConvertible {
        var label: String
        var builder: RequestBuilder
        var reasonMentions: String
        var testDescription: String { label }
    }

    @Test(
        "a request that cannot be built fails at once with invalidRequest and an already-disposed Disposable",
        arguments: [
            BuildFailureCase(
                label: "URL without a host", builder: RequestBuilder(url: URL(fileURLWithPath: "/tmp/cats")),
                reasonMentions: "/tmp/cats"),
            BuildFailureCase(
                label: "relative URL", builder: RequestBuilder(url: URL(string: "cats/tom")!),
                reasonMentions: "cats/tom"),
        ])
    func buildFailure(_ row: BuildFailureCase) async throws {
        let transport = StubTransport()
        let client = Self.client(transport, interceptors: [InterceptorTagger(name: "T")])
        let results = Box<[NetworkResult]>([])

        let disposable = client.sendRequest(row.builder) { result in results.withLock { $0.append(result) } }
        #expect(results.value.count == 1, "the completion ran before sendRequest returned")
        #expect(disposable.isDisposed)
        guard case .failure(KringleError.invalidRequest(let reason))? = results.value.first else {
            Issue.record("expected invalidRequest, got \(results.value)")
            return
        }
        #expect(reason.contains(row.reasonMentions), "\(reason)")
        disposable.dispose()
        await allowTimeForAWrongEvent()
        #expect(results.value.count == 1)
        #expect(transport.requests.isEmpty)
    }

    @Test("a body that does not encode fails at once with encodingFailed and nothing is sent")
    func encodingFailure() async throws {
        let transport = StubTransport()
        let client = Self.client(transport, interceptors: [InterceptorTagger(name: "T")])
        let results = Box<[NetworkResult]>([])
        let builder = RequestBuilder(
            method: .post, url: clientURL("https://stub.example/cats"), body: .json(Double.nan))

        let disposable = client.sendRequest(builder) { result in results.withLock { $0.append(result) } }
        #expect(disposable.isDisposed)
        guard case .failure(KringleError.encodingFailed)? = results.value.first else {
            Issue.record("expected encodingFailed, got \(results.value)")
            return
        }
        #expect(results.value.count == 1)
        #expect(transport.requests.isEmpty)
    }

    @Test("a RequestBuilder request carries its method, query, headers and body plus the client's defaults")
    func builderRequest() async throws {
        let received = Box<[LoopbackServer.Request]>([])
        let server = try LoopbackServer { request in
            received.withLock { $0.append(request) }
            return .json(#"{"fed": true}"#, status: 201)
        }
        defer { server.shutdown() }
        var configuration = NetworkClient.Configuration()
        configuration.defaultQueryItems = [URLQueryItem(name: "v", value: "2")]
        configuration.interceptors = [InterceptorTagger(name: "T")]
        let client = NetworkClient(configuration: configuration, transport: URLSessionTransport())
        let builder = RequestBuilder(
            method: .post, url: server.url("/cats/Tom/food"),
            queryItems: [URLQueryItem(name: "portion", value: "big & hearty")],
            headers: ["X-Feeder": "me"], body: .form([("food", "fish")]))
        let done = Promise<NetworkResult>.pending()

        client.sendRequest(builder) { done.fulfill($0) }
        let result = try await done.outcome().get()
        guard case .success(let response) = result else {
            Issue.record("expected success, got \(result)")
            return
        }
        #expect(response.statusCode == 201)
        let seen = try #require(received.value.first)
        #expect(seen.method == "POST")
        #expect(seen.path == "/cats/Tom/food")
        #expect(
            seen.queryItems == [
                URLQueryItem(name: "v", value: "2"), URLQueryItem(name: "portion", value: "big & hearty"),
            ])
        #expect(seen.header("X-Feeder") == "me")
        #expect(seen.header("Accept") == "application/json")
        #expect(seen.header("X-Adapted-By") == "T")
        #expect(seen.bodyText == "food=fish")
    }

    @Test(
        "a RequestBuilder with a multipart body streams it, file part included", arguments: TransportUnderTest.allCases)
    func builderMultipart(_ transport: TransportUnderTest) async throws {
        let received = Box<[LoopbackServer.Request]>([])
        let server = try LoopbackServer { request in
            received.withLock { $0.append(request) }
            return .status(204)
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let photo = try scratch.write(Data("not really a jpeg".utf8), to: "tom.jpg")
        let builder = RequestBuilder(
            method: .post, url: server.url("/photos"),
            body: .multipart([
                .field(name: "caption", value: "Tom"),
                .file(name: "photo", fileURL: photo, filename: "tom.jpg", contentType: "image/jpeg"),
            ]))
        let done = Promise<NetworkResult>.pending()

        transport.client().sendRequest(builder) { done.fulfill($0) }
        let result = try await done.outcome().get()
        #expect((try? result.result.get())?.statusCode == 204, "\(result)")
        let seen = try #require(received.value.first)
        #expect(seen.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(seen.bodyText.contains("not really a jpeg") && seen.bodyText.contains("Tom"))
        #expect(seen.header("Content-Length") == String(seen.body.count))
    }

    @Test(
        "disposing before the response cancels the request: completion gets cancelled once, the connection is dropped")
    func disposeInFlight() async throws {
        let server = try LoopbackServer { _ in LoopbackServer.Response.text("late").heldUntilHangUp() }
        defer { server.shutdown() }
        let client = Self.client(URLSessionTransport(), interceptors: [RetryPolicy()])
        let count = Counter()
        let done = Promise<NetworkResult>.pending()

        let disposable = client.sendRequest(HTTPRequest(url: server.url("/slow"))) { result in
            count.increment()
            done.fulfill(result)
        }
        #expect(await server.awaitStatistics { $0.requestsReceived == 1 })
        disposable.dispose()
        let result = try await done.outcome().get()
        guard case .cancelled = result else {
            Issue.record("expected cancelled, got \(result)")
            return
        }
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
        disposable.dispose()
        #expect(count.value == 1)
        #expect(server.statistics.requestsReceived == 1)
    }

    @Test("disposing during a retry delay cancels the retry: completion gets cancelled once, no second request")
    func disposeDuringDelay() async throws {
        let server = try LoopbackServer { _ in LoopbackServer.Response.status(503).addingHeader("Retry-After", "2") }
        defer { server.shutdown() }
        let canceller = InterceptorDelayedCanceller(after: 0.3) { server.statistics.requestsReceived }
        let client = Self.client(URLSessionTransport(), interceptors: [RetryPolicy()], logger: canceller.logger())
        let count = Counter()
        let done = Promise<NetworkResult>.pending()

        let disposable = client.sendRequest(HTTPRequest(url: server.url("/busy"))) { result in
            count.increment()
            done.fulfill(result)
        }
        canceller.cancel.withLock { $0 = { disposable.dispose() } }

        _ = try await canceller.done.outcome().get()
        #expect(canceller.requestsAtCancel.value == 1, "the disposal landed inside the 2 s delay")
        let result = try await done.outcome().get()
        guard case .cancelled = result else {
            Issue.record("expected cancelled, got \(result)")
            return
        }
        #expect(await !server.awaitStatistics(within: 2.5) { $0.requestsReceived >= 2 }, "\(server.statistics)")
        #expect(count.value == 1)
    }

    @Test("1,000 calls with disposals at random moments from other threads: every completion runs exactly once")
    func exactlyOnceUnderRaces() async throws {
        let calls = 1_000
        let transport = StubTransport()
        transport.stub { request in
            let index = Int(request.url.lastPathComponent) ?? 0
            let delay = [0, 0, 0.000_2, 0.001][index % 4]
            switch index % 3 {
            case 0: return .init(status: 200, delay: delay)
            case 1: return .init(status: 404, delay: delay)
            default: return .init(status: 503, headers: ["Retry-After": "0"], delay: delay)
            }
        }
        let client = Self.client(
            transport,
            interceptors: [InterceptorTagger(name: "T"), RetryPolicy(baseDelay: 0.000_5, maximumDelay: 0.002)],
            maxRetryCount: 2)
        let ledger = InterceptorCompletionLedger(expectedCalls: calls)
        let disposeRequested = Box<Set<Int>>([])
        let disposers = DispatchQueue(label: "interceptor.disposers", attributes: .concurrent)

        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                for index in 0..<calls {
                    let url = clientURL("https://stub.example/race/\(index)")
                    let disposable = client.sendRequest(HTTPRequest(url: url)) { ledger.record(index, $0) }
                    let dispose: @Sendable () -> Void = {
                        disposeRequested.withLock { _ = $0.insert(index) }
                        disposable.dispose()
                    }
                    switch Int.random(in: 0..<5) {
                    case 0: break  // never disposed
                    case 1: dispose()  // at once, on the sending thread
                    case 2: disposers.async { dispose() }  // as soon as another thread gets to it
                    case 3:
                        disposers.asyncAfter(deadline: .now() + .microseconds(Int.random(in: 0...2_000))) { dispose() }
                    default:
                        disposers.asyncAfter(deadline: .now() + .microseconds(Int.random(in: 0...300))) {
                            dispose(); dispose()
                        }
                    }
                }
                continuation.resume()
            }
        }

        let completed = await ledger.allCompleted.outcome(within: 30)
        #expect(
            completed.failure == nil,
            "calls never completed: \(Set(0..<calls).subtracting(ledger.results.keys).sorted().prefix(20))")
        await allowTimeForAWrongEvent(0.3)

        let results = ledger.results
        let disposed = disposeRequested.value
        let repeated = results.filter { $0.value.count != 1 }
        #expect(repeated.isEmpty, "calls completed more than once: \(repeated.prefix(10))")
        #expect(results.count == calls)
        let cancelledUndisposed = results.filter { $0.value.contains("cancelled") && !disposed.contains($0.key) }
        #expect(cancelledUndisposed.isEmpty, "cancelled without being disposed: \(cancelledUndisposed.prefix(10))")
        let expectedUndisposed = ["success 200", "failure 404", "failure 503"]
        let wrong = results.filter { !disposed.contains($0.key) && $0.value != [expectedUndisposed[$0.key % 3]] }
        #expect(wrong.isEmpty, "calls left alone ended wrongly: \(wrong.prefix(10))")
        let flattened = results.values.flatMap { $0 }
        #expect(
            flattened.contains("cancelled") && flattened.contains("success 200") && flattened.contains("failure 503"),
            "the mix covers every outcome")
        // No call, disposed or not, sent more than its 3 attempts.
        let perCall = Dictionary(grouping: transport.requests, by: { $0.url.lastPathComponent }).mapValues(
            \.count)
        #expect(perCall.values.allSatisfy { $0 <= 3 })
    }
}
