import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A way for a server to lose a response, and what a client must reject with for it, on
/// every transport (the table in the Transports article and the README).
enum LostResponseFault: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case closedAfterHead
    case closedMidBody
    case resetMidBody
    case closedWithoutResponse
    case resetWithoutResponse
    case notHTTPStatusLine
    case unknownVersion
    case fourDigitStatus

    /// The faulty answer.
    var response: LoopbackServer.Response {
        let body = String(repeating: "x", count: 10_000)
        switch self {
        // closeMidBody sends half the body: of a 1-byte body, none.
        case .closedAfterHead: return .text("x").withBehavior(.closeMidBody)
        case .closedMidBody: return .text(body).withBehavior(.closeMidBody)
        case .resetMidBody: return .text(body).withBehavior(.resetMidBody)
        case .closedWithoutResponse: return .text(body).withBehavior(.closeWithoutResponse)
        case .resetWithoutResponse: return .text(body).withBehavior(.resetWithoutResponse)
        case .notHTTPStatusLine: return .text("ok").withStatusLine("XYZZY garbage")
        case .unknownVersion: return .text("ok").withStatusLine("HTTP/1.2 200 OK")
        case .fourDigitStatus: return .text("ok").withStatusLine("HTTP/1.1 2000 OK")
        }
    }

    /// The case the request rejects with.
    var expectedCase: String {
        switch self {
        case .closedAfterHead, .closedMidBody, .resetMidBody: return "incompleteResponse"
        case .closedWithoutResponse, .resetWithoutResponse: return "transport"
        case .notHTTPStatusLine, .unknownVersion, .fourDigitStatus: return "malformedResponse"
        }
    }

    /// The body bytes a cut-short response delivered, and those it announced.
    var expectedProgress: (received: Int64, expected: Int64)? {
        switch self {
        case .closedAfterHead: return (0, 1)
        case .closedMidBody, .resetMidBody: return (5_000, 10_000)
        default: return nil
        }
    }

    /// The transport's own error inside: the curl code, or the `URLError` code
    /// FoundationNetworking reports (Linux).
    func underlyingCode(on transport: TransportUnderTest) -> Int? {
        switch (self, transport) {
        case (.closedAfterHead, .curl), (.closedMidBody, .curl): return CurlError.partialFile
        case (.resetMidBody, .curl), (.resetWithoutResponse, .curl): return CurlError.receiveError
        case (.closedWithoutResponse, .curl): return 52  // CURLE_GOT_NOTHING
        case (.closedAfterHead, .urlSession), (.closedMidBody, .urlSession): return URLError.unknown.rawValue
        case (.resetMidBody, .urlSession), (.resetWithoutResponse, .urlSession):
            return URLError.networkConnectionLost.rawValue
        case (.closedWithoutResponse, .urlSession): return URLError.badServerResponse.rawValue
        default: return nil
        }
    }

    var testDescription: String { rawValue }
}

@Suite("Lost responses: one error per fault, retried for idempotent methods", .generousTimeLimit)
struct LostResponseTests {
    /// Answers `/fault` with `fault` for the first `failures` requests, then with "ok";
    /// counts the requests.
    private static func server(_ fault: LostResponseFault, failures: Int = .max, counting requests: Counter)
        throws -> LoopbackServer
    {
        try LoopbackServer { _ in
            requests.increment() <= failures ? fault.response : .text("ok")
        }
    }

    @Test(
        "each fault rejects with the documented KringleError", arguments: TransportUnderTest.allCases,
        LostResponseFault.allCases)
    func mapping(_ transport: TransportUnderTest, fault: LostResponseFault) async throws {
        let requests = Counter()
        let server = try Self.server(fault, counting: requests)
        defer { server.shutdown() }

        let outcome = await transport.client().get(server.clientEndpoint("/fault"), as: Data.self).outcome()

        let error = try #require(outcome.kringleError, "\(outcome)")
        #expect(error.caseName == fault.expectedCase, "\(error)")
        #expect(requests.value == 1, "no retry without a RetryPolicy")
        switch error {
        case .incompleteResponse(let url, let received, let expected, let underlying):
            #expect(url.path == "/fault")
            #expect(received == fault.expectedProgress?.received)
            #expect(expected == fault.expectedProgress?.expected)
            #expect(Self.code(of: underlying) == fault.underlyingCode(on: transport), "\(underlying)")
            #expect(error.description.contains("ended before it was complete"))
        case .transport(let underlying):
            #expect(Self.code(of: underlying) == fault.underlyingCode(on: transport), "\(underlying)")
        case .malformedResponse(let url, let reason):
            #expect(url.path == "/fault")
            #expect(!reason.isEmpty)
        default:
            break
        }
    }

    @Test(
        "a GET that loses its response three times succeeds on the fourth attempt",
        arguments: TransportUnderTest.allCases, LostResponseFault.allCases)
    func retriedUntilAnswered(_ transport: TransportUnderTest, fault: LostResponseFault) async throws {
        let requests = Counter()
        let server = try Self.server(fault, failures: 3, counting: requests)
        defer { server.shutdown() }
        let client = Self.retryingClient(transport)

        let response = try await client.request(.get, server.clientEndpoint("/fault"), as: Data.self).valueWithin()

        #expect(response.value == Data("ok".utf8))
        #expect(response.metrics?.retries == 3)
        #expect(requests.value == 4)
    }

    @Test(
        "a GET that loses every response gives up after maxRetryCount retries",
        arguments: TransportUnderTest.allCases, [LostResponseFault.closedMidBody, .notHTTPStatusLine])
    func boundedByMaxRetryCount(_ transport: TransportUnderTest, fault: LostResponseFault) async throws {
        let requests = Counter()
        let server = try Self.server(fault, counting: requests)
        defer { server.shutdown() }
        let client = Self.retryingClient(transport)

        let outcome = await client.get(server.clientEndpoint("/fault"), as: Data.self).outcome()

        #expect(outcome.kringleError?.caseName == fault.expectedCase, "\(outcome)")
        #expect(requests.value == 4)
    }

    @Test(
        "a POST whose response is lost is not sent again",
        arguments: TransportUnderTest.allCases, [LostResponseFault.closedAfterHead, .closedMidBody, .notHTTPStatusLine])
    func postNotRetried(_ transport: TransportUnderTest, fault: LostResponseFault) async throws {
        let requests = Counter()
        let server = try Self.server(fault, failures: 1, counting: requests)
        defer { server.shutdown() }
        let client = Self.retryingClient(transport)

        let outcome = await client.request(
            .post, server.clientEndpoint("/fault"), body: .form([("a", "1")]), as: Data.self
        ).outcome()

        #expect(outcome.kringleError?.caseName == fault.expectedCase, "\(outcome)")
        // The server may have acted on it: only the caller can tell whether sending it again is safe.
        #expect(requests.value == 1)
    }

    /// The code of a transport's own error: a ``CurlError``'s, or a `URLError`'s.
    private static func code(of error: any Error) -> Int? {
        if let curl = error as? CurlError { return curl.code }
        if let urlError = error as? URLError { return urlError.code.rawValue }
        return nil
    }

    /// A client on `transport` that retries what `RetryPolicy` allows, at once, up to 3 times.
    private static func retryingClient(_ transport: TransportUnderTest) -> NetworkClient {
        transport.client {
            $0.interceptors = [RetryPolicy(baseDelay: 0)]
            $0.maxRetryCount = 3
        }
    }
}
