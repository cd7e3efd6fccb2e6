import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// A body that does not decode as its `Content-Encoding` says is the server's fault, on
/// either transport the same error, and not a lost response to retry.
@Suite("A body that breaks its Content-Encoding", .generousTimeLimit)
struct ContentCodingFailureTests {
    @Test(
        "a corrupt gzip or deflate body is invalidResponse on both transports, and not retried",
        arguments: TransportUnderTest.allCases, ["gzip", "deflate"])
    func corruptBodyIsInvalidResponse(_ transport: TransportUnderTest, coding: String) async throws {
        let server = try LoopbackServer { _ in
            LoopbackServer.Response(
                status: 200, headers: [("Content-Type", "application/json"), ("Content-Encoding", coding)],
                body: Data("this is not \(coding) at all, just text long enough to be read".utf8))
        }
        defer { server.shutdown() }
        let client = transport.client {
            $0.interceptors = [RetryPolicy(baseDelay: 0, maximumDelay: 0)]
        }

        let outcome = await client.get(server.clientEndpoint("/cats"), as: Data.self).outcome()

        guard case .failure(KringleError.invalidResponse(let response, let reason)) = outcome else {
            Issue.record("expected invalidResponse, got \(outcome)")
            return
        }
        #expect(response.statusCode == 200)
        #expect(response.url == server.url("/cats"))
        #expect(response.headers["Content-Encoding"] == coding)
        #expect(reason.contains("does not decode as \(coding)"), "\(reason)")
        #expect(server.statistics.requestsReceived == 1, "a corrupt body is not retried")
    }
}
