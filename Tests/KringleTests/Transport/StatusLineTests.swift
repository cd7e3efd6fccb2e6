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

/// Status lines at the edge of RFC 9112 §4: what each transport accepts and refuses.
@Suite("Status lines", .generousTimeLimit)
struct StatusLineTests {
    /// Answers every request with `statusLine` and the body "ok"; counts the requests.
    private static func server(_ statusLine: String, counting requests: Counter = Counter()) throws
        -> LoopbackServer
    {
        try LoopbackServer { request in
            requests.increment()
            return request.path == "/good" ? .text("good") : .text("ok").withStatusLine(statusLine)
        }
    }

    @Test func curlTransportAcceptsAStatusLineWithoutAReasonPhrase() async throws {
        let server = try Self.server("HTTP/1.1 200")
        defer { server.shutdown() }

        let value = try await TransportUnderTest.curl.client().get(server.clientEndpoint("/"), as: Data.self)
            .valueWithin()

        #expect(value == Data("ok".utf8))
    }

    @Test(arguments: [
        // Refused by the client's own check:
        ("Http/1.1 200 OK", "upper case"), ("HTTP/2.0 200 OK", "version"),
        // Refused by curl's:
        ("HTTP/1.2 200 OK", "version"), ("HTTP/1.1 2000 OK", "response code"), ("HTTP 200 OK", "HTTP/0.9"),
    ])
    func curlTransportRefusesAMalformedStatusLineAndGoesOn(_ statusLine: String, problem: String) async throws {
        let requests = Counter()
        let server = try Self.server(statusLine, counting: requests)
        defer { server.shutdown() }
        let client = TransportUnderTest.curl.client { $0.interceptors = [RetryPolicy(baseDelay: 0.01)] }

        let refused = await client.get(server.clientEndpoint("/odd"), as: Data.self).outcome()
        let next = try await client.get(server.clientEndpoint("/good"), as: Data.self).valueWithin()

        guard case .failure(KringleError.malformedResponse(let url, let reason)) = refused else {
            Issue.record("expected malformedResponse, got \(refused)")
            return
        }
        #expect(url.path == "/odd")
        #expect(reason.contains(problem))
        #expect(String(describing: KringleError.malformedResponse(url, reason: reason)).hasPrefix("Malformed response"))
        // Refused, and retried as RetryPolicy retries a malformed answer (the first attempt and
        // the client's default 3 retries); the connection it came on is not used again.
        #expect(requests.value == 5)
        #expect(next == Data("good".utf8))
    }

    #if canImport(FoundationNetworking)
    /// FoundationNetworking's limits, documented in the README and on `URLSessionTransport`:
    /// it refuses the valid line and accepts the invalid one. When this test fails,
    /// FoundationNetworking has changed: update the documentation.
    @Test func urlSessionOnLinuxRefusesAMissingReasonPhraseAndAcceptsLowerCaseHTTP() async throws {
        let withoutReason = try Self.server("HTTP/1.1 200")
        defer { withoutReason.shutdown() }
        let lowerCase = try Self.server("Http/1.1 200 OK")
        defer { lowerCase.shutdown() }
        let client = TransportUnderTest.urlSession.client()

        let refused = await client.get(withoutReason.clientEndpoint("/"), as: Data.self).outcome()
        let accepted = await client.get(lowerCase.clientEndpoint("/"), as: Data.self).outcome()

        #expect(refused.kringleError?.caseName == "transport")
        #expect(try accepted.get() == Data("ok".utf8))
    }
    #endif
}
