import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A streamed body goes through the same pipeline as any request: interceptors, retries
/// until the head, limits, and any transport, a custom one included.
@Suite("Streaming through the pipeline", .generousTimeLimit)
struct StreamingPipelineTests {
    private struct Tagging: RequestInterceptor {
        func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest> {
            var tagged = request
            tagged.headers["X-Tag"] = "stream-1"
            return Promise(tagged)
        }
    }

    @Test(
        "interceptors adapt the request, and a 503 before the head is retried", arguments: TransportUnderTest.allCases)
    func interceptorsAndRetry(_ transport: TransportUnderTest) async throws {
        let attempts = Recorder<String?>()
        let server = try LoopbackServer { request in
            attempts.append(request.header("X-Tag"))
            return attempts.elements.count == 1 ? .status(503) : .text("streamed")
        }
        let client = transport.client {
            $0.interceptors = [Tagging(), RetryPolicy(baseDelay: 0.001, maximumDelay: 0.001)]
        }
        var body = Data()
        for try await chunk in client.stream(server.clientEndpoint("/retried")) { body.append(chunk) }
        #expect(String(decoding: body, as: UTF8.self) == "streamed")
        #expect(attempts.elements == ["stream-1", "stream-1"])
    }

    @Test("maximumDownloadBytes stops a streamed body where it crosses", arguments: TransportUnderTest.allCases)
    func downloadLimit(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in
            .data(Data(count: 200_000)).withBehavior(.chunked(chunkSize: 8_192))
        }
        let client = transport.client { $0.responseLimits.maximumDownloadBytes = 50_000 }
        var received = 0
        do {
            for try await chunk in client.stream(server.clientEndpoint("/big")) { received += chunk.count }
            Issue.record("the limit should have stopped the body")
        } catch KringleError.responseTooLarge(_, let limit) {
            #expect(limit == .downloadBytes(50_000))
        }
        #expect(received <= 50_000)
    }

    @Test("a transport that only implements send streams its buffered body as one chunk")
    func customTransport() async throws {
        let stub = StubTransport()
        stub.stub(.get, "/lines", with: StubTransport.Stub(status: 200, body: Data("a\nb\n".utf8)))
        let client = NetworkClient(transport: stub)
        var lines: [String] = []
        for try await line in client.stream(
            ClientTestEndpoint(baseURL: URL(string: "https://stub.example")!, path: "/lines")
        ).lines {
            lines.append(line)
        }
        #expect(lines == ["a", "b"])
    }

    @Test("a multipart body is refused for a stream, before anything is sent")
    func multipartRefused() async throws {
        let stub = StubTransport()
        let client = NetworkClient(transport: stub)
        let form = RequestBody.multipart([.field(name: "field", value: "x")])
        let stream = client.stream(
            ClientTestEndpoint(baseURL: URL(string: "https://stub.example")!, path: "/up"), method: .post, body: form)
        await #expect(throws: KringleError.self) { _ = try await stream.response }
        #expect(stub.requests.isEmpty)
    }

    @Test(
        "a slow reader holds the transfer back: a body many times the channel arrives whole, and leaving while paused stops it",
        arguments: TransportUnderTest.allCases)
    func backpressure(_ transport: TransportUnderTest) async throws {
        let payload = patternedData(count: 600_000)
        let server = try LoopbackServer { request in
            guard request.path == "/held" else { return .data(payload) }
            return .endless(sending: 4_000_000)
        }
        let client = transport.client()
        var received = Data()
        for try await chunk in client.startStream(.get, server.clientEndpoint("/big"), body: nil, capacity: 16_384) {
            received.append(chunk)
            await Task.yield()  // slower than the network: the channel fills and the transfer pauses
        }
        #expect(received == payload)

        let held = client.startStream(.get, server.clientEndpoint("/held"), body: nil, capacity: 16_384)
        for try await _ in held { break }  // the rest is paused in the transport: leaving stops it
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer >= 1 })
    }

    @Test(
        "a stream whose reader stalls holds up no other request of its transport",
        arguments: TransportUnderTest.allCases)
    func stalledReaderBlocksNothing(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { request in
            request.path == "/ping" ? .text("pong") : .data(Data(count: 4_000_000))
        }
        let client = transport.client()
        let stalled = client.startStream(.get, server.clientEndpoint("/big"), body: nil, capacity: 16_384)
        var iterator = stalled.makeAsyncIterator()
        _ = try await iterator.next()  // then nothing more is read: the stream stays full
        for _ in 0..<3 {
            #expect(try await client.get(server.clientEndpoint("/ping"), as: Data.self).value == Data("pong".utf8))
        }
        stalled.cancel()
    }

    @Test("two loops reading one stream at once: the second fails instead of waiting forever")
    func twoReaders() {
        let channel = ResponseBodyChannel()
        let first = Box<Data?>(nil)
        channel.next { result in first.withLock { $0 = (try? result.get()) ?? nil } }  // waits
        let second = Box<Result<Data?, any Error>?>(nil)
        channel.next { result in second.withLock { $0 = result } }
        guard case .failure(KringleError.invalidRequest)? = second.value else {
            Issue.record("the second reader should fail at once, not \(String(describing: second.value))")
            return
        }
        #expect(channel.offer(Data("x".utf8)))
        #expect(first.value == Data("x".utf8))
    }

    @Test("a stream is logged as any request: the request sent, then its head", arguments: TransportUnderTest.allCases)
    func logging(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in .text("logged") }
        let log = InterceptorEventLog()
        let client = transport.client { $0.logger = log }
        for try await _ in client.stream(server.clientEndpoint("/logged")) {}
        let kinds = log.events.map { event -> String in
            switch event {
            case .requestSent(let method, let url, _): return "sent \(method) \(url.value.path)"
            case .responseReceived(_, _, let status, _, _, _, _): return "received \(status)"
            default: return "other"
            }
        }
        #expect(kinds == ["sent GET /logged", "received 200"])
    }
}
