import Foundation
import Kringle
import KringlePromise
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore
@testable import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Metrics: where the time of a request went", .generousTimeLimit)
struct MetricsTests {
    private static let body = Data(#"{"name": "Tom", "mood": "sleepy"}"#.utf8)

    @Test("CurlTransport measures every moment, the version, the address and reuse")
    func curlMetrics() async throws {
        let server = try LoopbackServer { _ in .data(Self.body, contentType: "application/json") }
        defer { server.shutdown() }
        let client = TransportUnderTest.curl.client()
        let first = try await client.request(.get, server.clientEndpoint("/cat"), as: Data.self).valueWithin()
        let second = try await client.request(.get, server.clientEndpoint("/cat"), as: Data.self).valueWithin()

        let fresh = try #require(first.metrics?.exchanges.first?.metrics)
        #expect(fresh.reusedConnection == false)
        #expect(fresh.httpVersion == .http1_1 && first.httpVersion == .http1_1)
        #expect(fresh.remoteAddress == "127.0.0.1" && fresh.remotePort == server.port)
        #expect(fresh.secureConnect == nil, "plain http has no TLS handshake")
        let moments = [fresh.connect, fresh.requestSent, fresh.firstResponseByte].compactMap { $0 }
        #expect(moments.count == 3, "\(fresh)")
        #expect(moments == moments.sorted() && moments.allSatisfy { $0 <= fresh.total }, "\(fresh)")
        #expect(fresh.decodedBodyBytes == Int64(Self.body.count))
        #expect((fresh.responseBytes ?? 0) > Int64(Self.body.count), "the head counts on the wire")
        #expect((fresh.requestBytes ?? 0) > 0)
        #expect(abs(fresh.start.timeIntervalSinceNow) < 600)

        let reused = try #require(second.metrics?.exchanges.first?.metrics)
        #expect(reused.reusedConnection == true)
        #expect(reused.connect == nil && reused.domainLookup == nil, "no connection was set up: \(reused)")
        #expect(reused.firstResponseByte != nil)
    }

    @Test("URLSessionTransport times what it sees itself")
    func urlSessionMetrics() async throws {
        let server = try LoopbackServer { _ in .data(Self.body, contentType: "application/json") }
        defer { server.shutdown() }
        let response = try await TransportUnderTest.urlSession.client()
            .request(.get, server.clientEndpoint("/cat"), as: Data.self).valueWithin()
        let metrics = try #require(response.metrics?.exchanges.first?.metrics)
        let head = try #require(metrics.firstResponseByte)
        #expect(head >= 0 && head <= metrics.total)
        #expect(metrics.decodedBodyBytes == Int64(Self.body.count))
    }

    @Test("a call's metrics list every redirect hop and every attempt", arguments: TransportUnderTest.allCases)
    func hopsAndAttempts(_ transport: TransportUnderTest) async throws {
        let requests = Counter()
        let server = try LoopbackServer { request in
            switch request.path {
            case "/old": return .redirect(to: "/new")
            default: return requests.increment() == 1 ? .status(503) : .text("here")
            }
        }
        defer { server.shutdown() }
        // No backoff: the retry goes out at once, on the real clock.
        let client = transport.client { $0.interceptors = [RetryPolicy(baseDelay: 0)] }
        let response = try await client.request(.get, server.clientEndpoint("/old"), as: Data.self).valueWithin()
        let metrics = try #require(response.metrics)
        #expect(metrics.exchanges.map(\.statusCode) == [302, 503, 302, 200])
        #expect(metrics.exchanges.map(\.attempt) == [1, 1, 2, 2])
        #expect(metrics.exchanges.map(\.url.path) == ["/old", "/new", "/old", "/new"])
        #expect(metrics.retries == 1)
        #expect(metrics.exchanges.allSatisfy { $0.metrics != nil })
        #expect((metrics.total ?? -1) >= 0)
    }

    @Test("the response log event carries the metrics, and its line the version")
    func logEvent() async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        let log = InterceptorEventLog()
        let client = TransportUnderTest.curl.client { $0.logger = log }
        _ = try await client.get(server.clientEndpoint("/x"), as: Data.self).valueWithin()
        let line = try #require(log.events.map(\.description).first { $0.hasPrefix("←") })
        #expect(line.hasSuffix("2 bytes, HTTP/1.1)"), "\(line)")
    }

    @Test("a stubbed response has exchanges without transport metrics")
    func stubbed() async throws {
        let transport = StubTransport()
        transport.stub { _ in .init(status: 200, body: Data("x".utf8)) }
        let response = try await NetworkClient(transport: transport)
            .request(.get, ClientTestEndpoint(baseURL: URL(string: "https://api.example")!, path: "/x"), as: Data.self)
            .valueWithin()
        #expect(response.metrics?.exchanges.count == 1)
        #expect(response.metrics?.exchanges.first?.metrics == nil)
        #expect(response.httpVersion == nil)
    }
}
