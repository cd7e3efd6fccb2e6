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

@Suite("Logging: structured events and redaction", .generousTimeLimit)
struct InterceptorLoggingTests {
    private static func client(
        _ transport: any Transport,
        log: InterceptorEventLog,
        interceptors: [any RequestInterceptor] = [],
        configure: (inout NetworkClient.Configuration) -> Void = { _ in }
    ) -> NetworkClient {
        var configuration = NetworkClient.Configuration()
        configuration.interceptors = interceptors
        configuration.logger = log
        configure(&configuration)
        return NetworkClient(configuration: configuration, transport: transport)
    }

    @Test("a call logs the request sent and the response received, with secrets redacted")
    func requestAndResponseEvents() async throws {
        let received = Box<[LoopbackServer.Request]>([])
        let server = try LoopbackServer { request in
            received.withLock { $0.append(request) }
            return LoopbackServer.Response.json(#"{"name": "Tom"}"#)
                .addingHeader("Set-Cookie", "session=s3cr3t-cookie; Path=/")
                .addingHeader("X-Request-Id", "r-42")
        }
        defer { server.shutdown() }
        let log = InterceptorEventLog()
        let client = Self.client(URLSessionTransport(), log: log)
        let endpoint = server.clientEndpoint(
            "/cats", headers: ["Authorization": "Bearer s3cr3t-token", "X-Trace": "t-1"])

        _ = try await client.get(endpoint).outcome().get()
        _ = try await client.get(endpoint).outcome().get()  // now with the cookie

        let sent = log.sent
        #expect(sent.count == 2)
        #expect(sent.allSatisfy { $0.method == "GET" && $0.url == server.url("/cats") })
        #expect(sent.allSatisfy { $0.headers["Authorization"] == "***" }, "\(sent.map(\.headers))")
        #expect(sent.allSatisfy { $0.headers["X-Trace"] == "t-1" && $0.headers["Accept"] == "application/json" })
        #expect(
            sent.last?.headers["Cookie"] == "***", "the jar's cookie is logged redacted: \(sent.map(\.headers))")

        let responses = log.received
        #expect(responses.count == 2)
        #expect(responses.allSatisfy { $0.statusCode == 200 && $0.method == "GET" && $0.url == server.url("/cats") })
        #expect(responses.allSatisfy { $0.bodySize == #"{"name": "Tom"}"#.utf8.count })
        #expect(responses.allSatisfy { $0.duration > 0 && $0.duration < 10 })
        #expect(
            responses.allSatisfy { $0.headers["Set-Cookie"] == "***" && $0.headers["X-Request-Id"] == "r-42" })

        let everything = log.events.map(\.description).joined(separator: "\n")
        #expect(!everything.contains("s3cr3t"), "no secret in any description:\n\(everything)")

        // Redaction is for the log only: the server got the real values.
        #expect(received.value.map { $0.header("Authorization") } == ["Bearer s3cr3t-token", "Bearer s3cr3t-token"])
        #expect(received.value.last?.header("Cookie") == "session=s3cr3t-cookie")
    }

    @Test("redaction.additionalHeaderNames adds to the defaults, case-insensitively")
    func configurableRedaction() async throws {
        let transport = StubTransport()
        transport.stub(
            .get, "/thing", with: .init(status: 200, headers: ["x-secret-echo": "hidden", "Set-Cookie": "a=b"]))
        let log = InterceptorEventLog()
        let client = Self.client(transport, log: log) { configuration in
            configuration.redaction.additionalHeaderNames = ["X-API-KEY", "X-Secret-Echo"]
        }
        let endpoint = ClientTestEndpoint(
            baseURL: interceptorStubBase, path: "/thing",
            headers: ["x-api-key": "k-123", "Authorization": "Basic abc"])

        _ = try await client.get(endpoint).outcome().get()
        let headers = try #require(log.sent.first?.headers)
        #expect(headers["X-Api-Key"] == "***")
        #expect(headers["Authorization"] == "***", "the defaults still apply")
        let responseHeaders = try #require(log.received.first?.headers)
        #expect(responseHeaders["X-Secret-Echo"] == "***")
        #expect(responseHeaders["Set-Cookie"] == "***")
        #expect(transport.requests.first?.headers["X-Api-Key"] == "k-123")
    }

    @Test("secret query items and URL passwords are redacted in events and error descriptions")
    func urlRedaction() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/cats", with: .init(status: 500, body: Data("down".utf8)))
        let log = InterceptorEventLog()
        let client = Self.client(transport, log: log) { configuration in
            configuration.defaultQueryItems = [URLQueryItem(name: "apiKey", value: "s3cr3t-key")]
            configuration.redaction.additionalQueryItemNames = ["session"]
            configuration.maxRetryCount = 0
        }
        let base = try #require(URL(string: "https://ann:s3cr3t-pass@cats.example"))
        let endpoint = ClientTestEndpoint(
            baseURL: base, path: "/cats",
            queryItems: [
                URLQueryItem(name: "session", value: "s3cr3t-session"), URLQueryItem(name: "page", value: "2"),
            ])

        let outcome = await client.get(endpoint).outcome()
        let error = try #require(outcome.failure)
        let everything = (log.events.map(\.description) + ["\(error)"]).joined(separator: "\n")
        #expect(!everything.contains("s3cr3t-key") && !everything.contains("s3cr3t-pass"), "\(everything)")
        #expect(!everything.contains("s3cr3t-session"), "\(everything)")
        #expect(everything.contains("apiKey=***") && everything.contains("page=2"), "\(everything)")
        #expect(log.sent.first?.url.absoluteString == "https://ann:***@cats.example/cats?apiKey=***&session=***&page=2")
        // The request itself, and the error's response, keep the real values.
        #expect(transport.requests.first?.url.query?.contains("s3cr3t-key") == true)
        if case .unacceptableStatusCode(_, let response)? = error as? KringleError {
            #expect(response.url.password == "s3cr3t-pass")
        } else {
            Issue.record("expected unacceptableStatusCode, got \(error)")
        }
    }

    @Test("an error without a response is logged with the client's redaction, and Location values are redacted")
    func errorWithoutResponseRedacted() async throws {
        let transport = StubTransport()
        transport.stub { _ in
            StubTransport.Stub(status: 302, headers: ["Location": "/loop?session=s3cr3t-session&access_token=t0k3n"])
        }
        let log = InterceptorEventLog()
        let client = Self.client(transport, log: log) { configuration in
            configuration.redaction.additionalQueryItemNames = ["session"]
            configuration.maximumRedirects = 1
            configuration.maxRetryCount = 0
        }
        let outcome = await client.get(ClientTestEndpoint(baseURL: interceptorStubBase, path: "/loop")).outcome()
        guard case .failure(KringleError.tooManyRedirects(let url)) = outcome else {
            Issue.record("expected tooManyRedirects, got \(outcome)")
            return
        }
        #expect(url.query?.contains("s3cr3t-session") == true, "the caller's error keeps the real URL")
        let everything = log.events.map(\.description).joined(separator: "\n")
        #expect(!everything.contains("s3cr3t-session") && !everything.contains("t0k3n"), "\(everything)")
        #expect(log.received.first?.headers["Location"]?.contains("session=***") == true)
    }

    @Test("the default redacted headers are Authorization, Proxy-Authorization, Cookie and Set-Cookie")
    func defaultRedactedHeaders() {
        #expect(
            Redaction.defaultHeaders == [
                "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie",
            ])
        #expect(NetworkClient.Configuration().redaction == .default)
        let headers: HTTPHeaders = [
            "authorization": "a", "PROXY-AUTHORIZATION": "b", "cookie": "c", "Set-Cookie": "d", "X-Other": "e",
        ]
        let redacted = Redaction.default.redacting(headers).value
        #expect(redacted.fields.map(\.value) == ["***", "***", "***", "***", "e"])
        #expect(redacted.fields.map(\.name) == headers.fields.map(\.name))
    }

    @Test("a retry is logged with its attempt, reason and delay, between the two attempts")
    func retryEvent() async throws {
        let transport = StubTransport()
        let count = Counter()
        transport.stub { _ in
            count.increment() == 1
                ? .init(status: 503, headers: ["Retry-After": "0"], body: Data("try later".utf8)) : .init(status: 200)
        }
        let log = InterceptorEventLog()
        let client = Self.client(transport, log: log, interceptors: [RetryPolicy()])

        _ = try await client.get(ClientTestEndpoint(baseURL: interceptorStubBase, path: "/thing")).outcome().get()
        let kinds = log.events.map(\.kind)
        #expect(kinds == ["sent", "received 503", "retry", "sent", "received 200"])
        let retry = try #require(log.retries.first)
        #expect(retry.method == "GET")
        #expect(retry.url == clientURL("https://stub.example/thing"))
        #expect(retry.attempt == 1)
        #expect(retry.delay == 0)
        guard case KringleError.unacceptableStatusCode(503, let response) = retry.reason else {
            Issue.record("the retry's reason should be the 503 itself, as a value: \(retry.reason)")
            return
        }
        #expect(String(decoding: response.body, as: UTF8.self).contains("try later"))
    }

    @Test("a failed call logs one failure event with the method, the request's URL and the error")
    func failureEvent() async throws {
        let transport = StubTransport()
        transport.stub(.post, "/api/cats", with: .init(status: 404))
        let log = InterceptorEventLog()
        let client = Self.client(transport, log: log)
        let endpoint = ClientTestEndpoint(baseURL: clientURL("https://stub.example/api"), path: "/cats")

        let outcome = await client.post(RequestBody.form([("name", "Tom")]), to: endpoint).outcome()
        #expect(outcome.rejectedStatus == 404)
        let failure = try #require(log.failures.first)
        #expect(log.failures.count == 1)
        #expect(failure.method == "POST")
        guard case KringleError.unacceptableStatusCode(404, _) = failure.error else {
            Issue.record("the failure event should carry the 404 error itself: \(failure.error)")
            return
        }
        #expect(
            failure.url == clientURL("https://stub.example/api/cats"),
            "the URL the request went to, not just the base URL")
    }

    @Test("a failed callback request logs a failure event too")
    func callbackFailureEvent() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/missing", with: .init(status: 404))
        let log = InterceptorEventLog()
        let client = Self.client(transport, log: log)
        let done = Promise<NetworkResult>.pending()

        client.sendRequest(HTTPRequest(url: clientURL("https://stub.example/missing"))) { done.fulfill($0) }
        let result = try await done.outcome().get()
        #expect(result.result.rejectedStatus == 404)
        #expect(
            log.failures.map(\.url) == [clientURL("https://stub.example/missing")],
            "the callback API should log its failure like the promise API does: \(log.events.map(\.description))")
    }

    @Test("a cancelled call logs a failure event (the event's documentation says cancellation is included)")
    func cancellationFailureEvent() async throws {
        // The stub's delay is on a clock nobody moves: the call is pending until cancelled,
        // however late the cancel comes (on a busy machine, 5 real seconds could pass first).
        let transport = StubTransport(clock: ManualClock())
        transport.stub(.get, "/slow", with: .init(status: 200, delay: 5))
        let log = InterceptorEventLog()
        let client = Self.client(transport, log: log)

        let call = client.get(ClientTestEndpoint(baseURL: interceptorStubBase, path: "/slow"))
        #expect(await eventually { transport.requests.count == 1 })
        call.cancel()
        #expect(await call.outcome().isCancellation)
        #expect(
            await eventually { !log.failures.isEmpty },
            "no failure event for the cancelled call: \(log.events.map(\.description))")
    }

    @Test("without a logger nothing is logged, and a derived client logs only to its own logger")
    func loggerPerClient() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/thing", with: .init(status: 200))
        let endpoint = ClientTestEndpoint(baseURL: interceptorStubBase, path: "/thing")
        let plain = NetworkClient(transport: transport)
        let first = InterceptorEventLog()
        let second = InterceptorEventLog()
        let logged = plain.newClient(withLogger: first)
        let relogged = logged.newClient(withLogger: second)

        _ = try await plain.get(endpoint).outcome().get()
        #expect(first.events.isEmpty && second.events.isEmpty)
        _ = try await logged.get(endpoint).outcome().get()
        #expect(first.events.count == 2 && second.events.isEmpty)
        _ = try await relogged.get(endpoint).outcome().get()
        #expect(first.events.count == 2 && second.events.count == 2)
        #expect(plain.configuration.logger == nil)
    }
}

@Suite("Redaction in transport failures", .generousTimeLimit)
struct TransportFailureRedactionTests {
    @Test("a transport failure's description hides the URL's secrets", arguments: TransportUnderTest.allCases)
    func transportFailure(_ transport: TransportUnderTest) async throws {
        let client = transport.client { $0.maxRetryCount = 0 }
        let endpoint = refusedEndpoint("/cats", query: [URLQueryItem(name: "api_key", value: "s3cr3t-key")])
        let outcome = await client.get(endpoint).outcome()
        let error = try #require(outcome.failure)
        #expect(!"\(error)".contains("s3cr3t-key"), "\(error)")
        #expect("\(error)".contains("api_key=***") || transport == .curl, "the URL is shown, redacted: \(error)")
    }
}
