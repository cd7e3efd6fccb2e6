import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Response bodies handed over as they arrive, against a real server on 127.0.0.1, over
/// every transport.
@Suite("Streaming responses end to end", .generousTimeLimit)
struct StreamingEndToEndTests {
    @Test("the chunks arrive in order and complete, the head before the first", arguments: TransportUnderTest.allCases)
    func chunks(_ transport: TransportUnderTest) async throws {
        let payload = patternedData(count: 300_000)
        let released = LoopbackServer.Gate()
        let server = try LoopbackServer { _ in
            .data(payload).withBehavior(.paced([.init(bytes: 1_000, then: .until(released))], afterLast: .sendRest))
        }
        let stream = transport.client().stream(server.clientEndpoint("/bytes"))

        let head = try await stream.response  // while the server holds the rest back
        #expect(head.statusCode == 200)
        #expect(head.headers["Content-Length"] == "300000")
        released.open()
        var received = Data()
        var chunks = 0
        for try await chunk in stream {
            received.append(chunk)
            chunks += 1
        }
        #expect(received == payload)
        #expect(chunks > 1)
    }

    @Test("lines are cut at LF, CRLF and CR across chunk boundaries", arguments: TransportUnderTest.allCases)
    func lines(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in
            .text("alpha\r\nbeta\ngamma\rdelta\n\nlast").withBehavior(.chunked(chunkSize: 3))
        }
        var lines: [String] = []
        for try await line in transport.client().stream(server.clientEndpoint("/lines")).lines {
            lines.append(line)
        }
        #expect(lines == ["alpha", "beta", "gamma", "delta", "", "last"])
    }

    @Test("NDJSON lines decode one by one; a bad line fails with its number", arguments: TransportUnderTest.allCases)
    func ndjson(_ transport: TransportUnderTest) async throws {
        struct Entry: Decodable, Sendable, Equatable { var n: Int }
        let server = try LoopbackServer { _ in
            .text("{\"n\":1}\n\n{\"n\":2}\nnot json\n{\"n\":4}\n").withBehavior(.chunked(chunkSize: 5))
        }
        var entries: [Entry] = []
        do {
            for try await entry in transport.client().lines(server.clientEndpoint("/feed"), as: Entry.self) {
                entries.append(entry)
            }
            Issue.record("the bad line should have failed the sequence")
        } catch KringleError.lineDecodingFailed(_, let line, let url) {
            #expect(line == 4)
            #expect(url == server.url("/feed"))
        }
        #expect(entries == [Entry(n: 1), Entry(n: 2)])
    }

    @Test("a line longer than the limit fails with lineTooLong", arguments: TransportUnderTest.allCases)
    func lineTooLong(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in .text(String(repeating: "x", count: 5_000) + "\n") }
        var lines: [String] = []
        do {
            for try await line in transport.client().stream(server.clientEndpoint("/long")).lines(maximumLength: 1_000)
            {
                lines.append(line)
            }
            Issue.record("the long line should have failed the sequence")
        } catch KringleError.lineTooLong(let url, let limit) {
            #expect(limit == 1_000)
            #expect(url == server.url("/long"))
        }
        #expect(lines.isEmpty, "no line past the limit is delivered")
    }

    @Test(
        "an unacceptable status rejects the response with the start of the body", arguments: TransportUnderTest.allCases
    )
    func unacceptableStatus(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in .json(#"{"error":"gone"}"#, status: 410) }
        let stream = transport.client().stream(server.clientEndpoint("/gone"))
        do {
            _ = try await stream.response
            Issue.record("410 should reject")
        } catch KringleError.unacceptableStatusCode(let status, let response) {
            #expect(status == 410)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"gone"}"#)
        }
    }

    @Test("redirects are followed and cookies stored before the body streams", arguments: TransportUnderTest.allCases)
    func redirectsAndCookies(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { request in
            if request.path == "/old" {
                return .redirect(to: "/new", status: 302).addingHeader("Set-Cookie", "seen=1")
            }
            return .text("cookie: \(request.header("Cookie") ?? "none")")
        }
        let stream = transport.client().stream(server.clientEndpoint("/old"))
        var text = Data()
        for try await chunk in stream { text.append(chunk) }
        #expect(String(decoding: text, as: UTF8.self) == "cookie: seen=1")
        #expect(try await stream.response.url == server.url("/new"))
    }

    @Test("leaving the loop early closes the connection at once", arguments: TransportUnderTest.allCases)
    func earlyExit(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in
            .endless(sending: 10_000)
        }
        let client = transport.client()
        for try await chunk in client.stream(server.clientEndpoint("/endless")) {
            #expect(!chunk.isEmpty)
            break
        }
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer >= 1 })
    }

    @Test("cancelling the task that reads closes the connection", arguments: TransportUnderTest.allCases)
    func taskCancellation(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in
            .endless(sending: 10_000)
        }
        let client = transport.client()
        let firstChunk = Flag()
        let reading = Task {
            for try await _ in client.stream(server.clientEndpoint("/endless")) { firstChunk.set() }
        }
        while !firstChunk.isSet { await Task.yield() }
        reading.cancel()
        await #expect(throws: (any Error).self) { try await reading.value }
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer >= 1 })
    }

    @Test("the promise form hands every chunk over in order, then the response", arguments: TransportUnderTest.allCases)
    func promiseForm(_ transport: TransportUnderTest) async throws {
        let payload = patternedData(count: 200_000)
        let server = try LoopbackServer { _ in .data(payload).withBehavior(.chunked(chunkSize: 7_000)) }
        let received = Box(Data())
        let response = try await transport.client()
            .stream(server.clientEndpoint("/bytes")) { chunk in received.withLock { $0.append(chunk) } }
            .value
        #expect(response.statusCode == 200)
        #expect(received.value == payload)
    }

    @Test("cancelling the promise form closes the connection", arguments: TransportUnderTest.allCases)
    func promiseFormCancellation(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in
            .endless(sending: 10_000)
        }
        let firstChunk = Flag()
        let streaming = transport.client().stream(server.clientEndpoint("/endless")) { _ in firstChunk.set() }
        while !firstChunk.isSet { await Task.yield() }
        streaming.cancel()
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer >= 1 })
        await #expect(throws: (any Error).self) { try await streaming.value }
    }

    @Test("a stream dropped without being read closes its connection", arguments: TransportUnderTest.allCases)
    func droppedUnread(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in
            .endless(sending: 4_000_000)
        }
        let client = transport.client()
        do {
            let stream = client.stream(server.clientEndpoint("/endless"))
            #expect(try await stream.response.statusCode == 200)
        }  // the stream goes here, unread
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer >= 1 })
    }

    @Test(
        "cancelling a stream while its head is awaited rejects the head and closes the connection",
        arguments: TransportUnderTest.allCases)
    func cancelBeforeHead(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in
            .text("late").heldUntilHangUp()
        }
        let stream = transport.client().stream(server.clientEndpoint("/slow"))
        let head = Task { try await stream.response }
        #expect(await server.awaitStatistics { $0.requestsReceived >= 1 })
        stream.cancel()
        await #expect(throws: (any Error).self) { _ = try await head.value }
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer >= 1 })
    }
}

extension LoopbackServer.Response {
    /// The first `bytes` of a body twice as long, then nothing until the client hangs up:
    /// a transfer that only the client can end, whose end the server counts
    /// (``LoopbackServer/Statistics/connectionsClosedByPeer``). More than the socket buffers
    /// hold, when the test needs the client's transport itself to be holding back.
    static func endless(sending bytes: Int) -> Self {
        .data(patternedData(count: 2 * bytes)).withBehavior(
            .paced([.init(bytes: bytes)], afterLast: .holdUntilHangUp))
    }
}
