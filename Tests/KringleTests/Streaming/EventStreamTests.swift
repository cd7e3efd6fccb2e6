import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Server-Sent Events against a real server on 127.0.0.1, over every transport.
@Suite("Server-Sent Events end to end", .generousTimeLimit)
struct EventStreamTests {
    /// An event-stream response with `text`, in chunks of 7 bytes so that fields and lines
    /// cross chunk boundaries.
    private static func events(_ text: String) -> LoopbackServer.Response {
        .data(Data(text.utf8), contentType: "text/event-stream").withBehavior(.chunked(chunkSize: 7))
    }

    /// The events of `stream` until it fails, and the failure.
    private static func collect(_ stream: EventStream) async -> ([ServerSentEvent], (any Error)?) {
        var events: [ServerSentEvent] = []
        do {
            for try await event in stream { events.append(event) }
            return (events, nil)
        } catch {
            return (events, error)
        }
    }

    @Test(
        "events parse across chunks, reconnect with Last-Event-ID after retry, and a 204 ends the stream",
        arguments: TransportUnderTest.allCases)
    func reconnection(_ transport: TransportUnderTest) async throws {
        let connections = Recorder<[String?]>()
        let server = try LoopbackServer { request in
            let seen = [request.header("Last-Event-ID"), request.header("Accept"), request.header("Cache-Control")]
            connections.append(seen)
            switch connections.elements.count {
            case 1:
                return Self.events(
                    "\u{FEFF}retry: 1\n: a comment\nid: 1\nevent: add\ndata: first\ndata: line\n\nid: 2\ndata: second\n\n"
                )
            case 2:
                return Self.events("data: third\r\n\r\n")
            default:
                return .status(204)
            }
        }
        let (events, error) = await Self.collect(transport.client().events(server.clientEndpoint("/feed")))

        #expect(
            events == [
                ServerSentEvent(event: "add", data: "first\nline", id: "1", retry: 1),
                ServerSentEvent(data: "second", id: "2"),
                ServerSentEvent(data: "third", id: "2"),
            ])
        #expect(connections.elements.map { $0[0] } == [nil, "2", "2"])
        #expect(connections.elements.allSatisfy { $0[1] == "text/event-stream" && $0[2] == "no-cache" })
        guard case KringleError.eventStreamRefused(let response, _)? = error else {
            Issue.record("a 204 should end the stream with eventStreamRefused, not \(String(describing: error))")
            return
        }
        #expect(response.statusCode == 204)
    }

    @Test("another Content-Type ends the stream for good, without reconnecting", arguments: TransportUnderTest.allCases)
    func wrongContentType(_ transport: TransportUnderTest) async throws {
        let requests = Counter()
        let server = try LoopbackServer { _ in
            _ = requests.increment()
            return .json(#"{"not":"events"}"#)
        }
        let (events, error) = await Self.collect(transport.client().events(server.clientEndpoint("/feed")))
        #expect(events.isEmpty)
        guard case KringleError.eventStreamRefused(_, let reason)? = error else {
            Issue.record("expected eventStreamRefused, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("application/json"))
        #expect(requests.value == 1)
    }

    /// Failures that would only come again on a reconnection: a transport's own refusal
    /// (not a `KringleError`, or one wrapped in `transport` that is no `TransportFailure`,
    /// as a cassette's is), a proxy's, and h2c's.
    static let lastingFailures: [any Error & Sendable] = [
        NoEntryLeft(),
        KringleError.transport(NoEntryLeft()),
        KringleError.proxyRefused(
            URL(string: "https://chat.example/feed")!, proxy: URL(string: "http://proxy.example:3128"), status: 407),
        KringleError.unsupportedConfiguration("the server does not speak h2c"),
    ]

    struct NoEntryLeft: Error {}

    @Test("a refusal that would only come again ends the stream for good", arguments: 0..<lastingFailures.count)
    func lastingFailureEndsForGood(_ index: Int) async throws {
        let failure = Self.lastingFailures[index]
        let requests = Counter()
        let stub = StubTransport()
        stub.stub { _ in
            guard requests.increment() == 1 else { throw failure }
            return StubTransport.Stub(headers: ["Content-Type": "text/event-stream"], body: Data("data: one\n\n".utf8))
        }
        var reconnection = EventStream.Reconnection()
        reconnection.delay = 0
        let stream = NetworkClient(transport: stub).events(
            ClientTestEndpoint(baseURL: URL(string: "https://chat.example")!, path: "/feed"), reconnection: reconnection
        )

        let (events, error) = await Self.collect(stream)
        #expect(events.map(\.data) == ["one"])
        #expect(error.map { String(describing: $0) } == String(describing: failure))
        // One reconnection, refused, and no more: not maximumAttempts of them.
        #expect(requests.value == 2)
    }

    @Test("a status outside the acceptable ones ends the stream for good", arguments: TransportUnderTest.allCases)
    func unacceptableStatus(_ transport: TransportUnderTest) async throws {
        let requests = Counter()
        let server = try LoopbackServer { _ in
            _ = requests.increment()
            return .text("maintenance", status: 503)
        }
        let (_, error) = await Self.collect(transport.client().events(server.clientEndpoint("/feed")))
        guard case KringleError.unacceptableStatusCode(503, let response)? = error else {
            Issue.record("expected unacceptableStatusCode(503), got \(String(describing: error))")
            return
        }
        #expect(String(decoding: response.body, as: UTF8.self) == "maintenance")
        #expect(requests.value == 1)
    }

    @Test(
        "reconnections stop after maximumAttempts in a row that bring no event", arguments: TransportUnderTest.allCases)
    func attemptsRunOut(_ transport: TransportUnderTest) async throws {
        let requests = Counter()
        let server = try LoopbackServer { _ in
            _ = requests.increment()
            return Self.events("retry: 1\n\n")  // ends at once, no event
        }
        var reconnection = EventStream.Reconnection()
        reconnection.maximumAttempts = 3
        reconnection.maximumDelay = 0.001
        let (events, error) = await Self.collect(
            transport.client().events(server.clientEndpoint("/feed"), reconnection: reconnection))
        #expect(events.isEmpty)
        #expect(error == nil, "connections that ended cleanly end the stream without an error")
        #expect(requests.value == 4, "the first connection and three more")
    }

    @Test("leaving the loop closes the connection", arguments: TransportUnderTest.allCases)
    func earlyExit(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in
            .data(Data("data: one\n\n".utf8) + Data(count: 100_000), contentType: "text/event-stream")
                .withBehavior(.paced([.init(bytes: 11)], afterLast: .holdUntilHangUp))
        }
        for try await event in transport.client().events(server.clientEndpoint("/feed")) {
            #expect(event.data == "one")
            break
        }
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer >= 1 })
    }

    @Test(
        "§9.2.6 an event cut short by the end of a connection is dropped, and its id is not sent",
        arguments: TransportUnderTest.allCases)
    func partialEventDropped(_ transport: TransportUnderTest) async throws {
        let lastIDs = Recorder<String?>()
        let server = try LoopbackServer { request in
            lastIDs.append(request.header("Last-Event-ID"))
            switch lastIDs.elements.count {
            case 1: return Self.events("retry: 1\nid: 1\ndata: a\n\nid: 2\ndata: partial\n")
            case 2: return Self.events("data: b\n\n")
            default: return .status(204)
            }
        }
        let (events, _) = await Self.collect(transport.client().events(server.clientEndpoint("/feed")))
        #expect(events.map(\.data) == ["a", "b"])
        #expect(events.map(\.id) == ["1", "1"])
        #expect(lastIDs.elements == [nil, "1", "1"])
    }

    @Test("a status other than 200 ends the stream for good", arguments: TransportUnderTest.allCases)
    func otherSuccessStatus(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in
            LoopbackServer.Response(status: 202, headers: [("Content-Type", "text/event-stream")], body: Data())
        }
        let stream = transport.client().events(server.clientEndpoint("/feed"))
        var iterator = stream.makeAsyncIterator()
        await #expect(throws: KringleError.self) { _ = try await iterator.next() }
        #expect(try await iterator.next() == nil, "a stream that ended for good stays ended")
    }
}
