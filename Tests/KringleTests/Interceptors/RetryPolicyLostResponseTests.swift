import Foundation
import Kringle
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``RetryPolicy`` retries every failure where no complete, valid response arrived, for
/// idempotent methods only (RFC 9110 §9.2.2).
@Suite("RetryPolicy: lost responses")
struct RetryPolicyLostResponseTests {
    static let url = URL(string: "http://stub.example/thing")!

    /// Each error as the transports produce it (see `LostResponseTests`), and whether it is a
    /// lost response.
    static let errors: [(error: any Error & Sendable, label: String, lost: Bool)] = [
        (
            KringleError.incompleteResponse(
                url, received: 5_000, expected: 10_000,
                underlying: CurlError(code: CurlError.partialFile, message: "transfer closed")),
            "closed mid-body (curl 18)", true
        ),
        (
            KringleError.incompleteResponse(url, received: 0, expected: 1, underlying: URLError(.unknown)),
            "closed after the head (URLError -1)", true
        ),
        (
            KringleError.incompleteResponse(
                url, received: 5_000, expected: nil, underlying: URLError(.networkConnectionLost)),
            "reset mid-body (URLError -1005)", true
        ),
        (KringleError.malformedResponse(url, reason: "Received HTTP/0.9"), "garbage status line", true),
        (
            KringleError.transport(CurlError(code: CurlError.receiveError, message: "reset")),
            "reset before an answer (curl 56)", true
        ),
        (
            KringleError.transport(CurlError(code: 52, message: "Empty reply")), "closed before an answer (curl 52)",
            true
        ),
        (
            KringleError.transport(URLError(.badServerResponse)), "closed before an answer (URLError -1011)", true
        ),
        (
            KringleError.transport(URLError(.networkConnectionLost)), "reset before an answer (URLError -1005)",
            true
        ),
        (KringleError.timedOut(.total), "timed out", true),
        // FoundationNetworking's catch-all, before any answer: it may be a refusal of what the
        // transport could not read, or a local failure; not a lost response.
        (KringleError.transport(URLError(.unknown)), "URLError -1 without a head", false),
        (KringleError.responseTooLarge(url, limit: .bodyBytes(1)), "responseTooLarge", false),
    ]

    static let cases: [InterceptorDecisionCase] = {
        var cases: [InterceptorDecisionCase] = []
        for (error, label, lost) in errors {
            for method in [HTTPMethod.get, .head, .put, .delete, .options] {
                cases.append(.init(method: method, error: error, expected: lost ? .backoff : .none, label: label))
            }
            for method in [HTTPMethod.post, .patch] {
                cases.append(.init(method: method, error: error, expected: .none, label: label))
            }
        }
        return cases
    }()

    @Test("lost responses are retried for idempotent methods, never for POST or PATCH", arguments: cases)
    func decision(_ row: InterceptorDecisionCase) {
        let policy = RetryPolicy(baseDelay: 1, maximumDelay: 30)
        RetryPolicyTests.check(
            policy.decision(for: RetryPolicyTests.request(row.method), dueTo: row.error, attempt: 1, now: Date()),
            row.expected)
    }

    @Test("a POST may be retried on a lost response when the caller says it is safe")
    func postWhenAllowed() {
        let policy = RetryPolicy(retryableMethods: [.post], baseDelay: 1)
        let error = KringleError.incompleteResponse(Self.url, received: 1, expected: 2, underlying: URLError(.unknown))
        RetryPolicyTests.check(
            policy.decision(for: RetryPolicyTests.request(.post), dueTo: error, attempt: 1, now: Date()), .backoff)
    }
}
