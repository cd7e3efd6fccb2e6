import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Logging: every event carries only redacted values", .generousTimeLimit)
struct LogEventRedactionTests {
    /// A call that makes every kind of event: a 503 that is retried, a redirect whose
    /// `Location` holds a token, a 404 that fails the call; then a response that the cache
    /// stores and answers the next time. Every request has a secret header, a secret query
    /// item and a URL password; the server sets a cookie, so a `Cookie` header follows.
    @Test(
        "a request with a secret header, query item and URL password is logged redacted, every event of it",
        arguments: TransportUnderTest.allCases)
    func everyEventRedacted(_ transport: TransportUnderTest) async throws {
        let received = Box<[LoopbackServer.Request]>([])
        let catsCalls = Counter()
        let server = try LoopbackServer { request in
            received.withLock { $0.append(request) }
            switch request.path {
            case "/cats" where catsCalls.increment() == 1:
                return LoopbackServer.Response.status(503).addingHeader("Retry-After", "0")
                    .addingHeader("Set-Cookie", "sid=s3cr3t-cookie; Path=/")
            case "/cats":
                return .redirect(to: "/next?token=s3cr3t-next")
            case "/doc":
                return LoopbackServer.Response.text("doc").addingHeader("Cache-Control", "max-age=600")
            default:
                return .text("no such thing", status: 404)
            }
        }
        defer { server.shutdown() }
        let log = InterceptorEventLog()
        let client = transport.client { configuration in
            configuration.logger = log
            configuration.interceptors = [RetryPolicy()]
            configuration.cache = HTTPCache.memory()
            configuration.redaction.additionalHeaderNames = ["X-Api-Key"]
        }
        let base = try #require(URL(string: "http://ann:s3cr3t-pass@127.0.0.1:\(server.port)"))
        let secrets = ["Authorization": "Bearer s3cr3t-token", "X-Api-Key": "s3cr3t-header"]
        func endpoint(_ path: String) -> ClientTestEndpoint {
            ClientTestEndpoint(
                baseURL: base, path: path,
                queryItems: [
                    URLQueryItem(name: "api_key", value: "s3cr3t-key"), URLQueryItem(name: "page", value: "2"),
                ],
                headers: secrets)
        }

        let failed = await client.get(endpoint("/cats")).outcome()
        #expect(failed.rejectedStatus == 404, "\(failed)")
        for _ in 1...2 { _ = try await client.get(endpoint("/doc")).outcome().get() }

        // Every kind of event was made, so the check below covers them all.
        let kinds = log.events.map(\.kind)
        #expect(
            kinds == [
                "sent", "received 503", "retry", "sent", "received 302", "sent", "received 404", "failure", "sent",
                "received 200", "cache hit 200",
            ])

        // Nothing an event holds, however deep (the failure's response, its metrics), shows a
        // secret: `dump` walks every stored property.
        for event in log.events {
            var everything = event.description + "\n"
            dump(event, to: &everything)
            #expect(!everything.contains("s3cr3t"), "\(everything)")
        }
        let lines = log.events.map(\.description).joined(separator: "\n")
        #expect(lines.contains("http://ann:***@127.0.0.1:\(server.port)/cats?api_key=***&page=2"), "\(lines)")
        #expect(lines.contains("/next?token=***"), "the redirect's URL too: \(lines)")
        #expect(log.sent.allSatisfy { $0.headers["Authorization"] == "***" })
        #expect(log.sent.allSatisfy { $0.headers["X-Api-Key"] == "***" })
        #expect(log.sent.contains { $0.headers["Cookie"] == "***" }, "\(log.sent.map(\.headers))")
        #expect(log.received.first?.headers["Set-Cookie"] == "***")
        #expect(log.received.contains { $0.headers["Location"] == "/next?token=***" })
        guard case KringleError.unacceptableStatusCode(404, let response)? = log.failures.first?.error else {
            Issue.record("the failure event should carry the 404: \(log.failures)")
            return
        }
        #expect(response.url.password == "***" && response.url.query == "token=***")

        // The redaction is the log's alone: the server got every secret.
        let requests = received.value
        #expect(requests.count == 4)
        #expect(requests.allSatisfy { $0.header("X-Api-Key") == "s3cr3t-header" })
        #expect(requests.first?.query == "api_key=s3cr3t-key&page=2")
        #expect(requests[2].query == "token=s3cr3t-next" && requests[2].header("Cookie") == "sid=s3cr3t-cookie")
        // And the caller's error keeps the real URL.
        guard case KringleError.unacceptableStatusCode(_, let callers)? = failed.failure as? KringleError else {
            Issue.record("expected the 404, got \(failed)")
            return
        }
        #expect(callers.url.password == "s3cr3t-pass")
    }

    @Test(
        "a transport's failure is logged redacted, the error it wraps included",
        arguments: TransportUnderTest.allCases)
    func transportFailureRedacted(_ transport: TransportUnderTest) async throws {
        let log = InterceptorEventLog()
        let client = transport.client {
            $0.logger = log
            $0.maxRetryCount = 0
        }
        let endpoint = ClientTestEndpoint(
            baseURL: try #require(URL(string: "http://ann:s3cr3t-pass@127.0.0.1:1")), path: "/cats",
            queryItems: [URLQueryItem(name: "api_key", value: "s3cr3t-key")],
            headers: ["Authorization": "Bearer s3cr3t-token"])

        let outcome = await client.get(endpoint).outcome()
        guard case KringleError.transport? = outcome.failure as? KringleError else {
            Issue.record("expected a transport error, got \(outcome)")
            return
        }
        #expect(log.failures.count == 1)
        for event in log.events {
            var everything = event.description + "\n"
            dump(event, to: &everything)
            #expect(!everything.contains("s3cr3t"), "\(everything)")
        }
    }
}
