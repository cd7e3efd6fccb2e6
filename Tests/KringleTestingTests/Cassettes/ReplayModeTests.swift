import Foundation
import KringleTestSupport
import KringleTesting
import Testing

@Suite("Replay modes", .generousTimeLimit)
struct ReplayModeTests {
    /// A server that answers each path with the path and how many requests it has had.
    private static func makeServer() throws -> (LoopbackServer, Counter) {
        let counter = Counter()
        let server = try LoopbackServer { request in
            .text("\(request.path) #\(counter.increment())")
        }
        return (server, counter)
    }

    private static func text(_ client: NetworkClient, _ server: LoopbackServer, _ path: String) async throws -> String {
        String(
            decoding: try await client.request(.get, server.endpoint(path), as: Data.self).value.value, as: UTF8.self)
    }

    @Test("record when missing: the cassette answers what it has, the network the rest, which is added")
    func recordWhenMissing() async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("missing.har")
        let (server, _) = try Self.makeServer()
        defer { server.shutdown() }

        let first = try ReplayTransport(
            cassette: cassette, mode: .recordWhenMissing(NetworkClient.makeDefaultTransport()))
        #expect(try await Self.text(NetworkClient(transport: first), server, "/a") == "/a #1")
        #expect(first.replayedCount == 0)

        let second = try ReplayTransport(
            cassette: cassette, mode: .recordWhenMissing(NetworkClient.makeDefaultTransport()))
        let client = NetworkClient(transport: second)
        #expect(try await Self.text(client, server, "/a") == "/a #1")
        #expect(try await Self.text(client, server, "/b") == "/b #2")
        #expect(second.replayedCount == 1)
        #expect(server.statistics.requestsReceived == 2)
        #expect(
            try HAR.Archive.read(from: cassette).log.entries.map(\.request.url) == [
                server.url("/a").absoluteString, server.url("/b").absoluteString,
            ])
    }

    @Test("re-record all: every request goes to the network, recorded ones too, and the cassette starts afresh")
    func reRecordAll() async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("again.har")
        let (server, _) = try Self.makeServer()
        defer { server.shutdown() }
        let recorder = RecordingTransport(recording: NetworkClient.makeDefaultTransport(), to: cassette)
        #expect(try await Self.text(NetworkClient(transport: recorder), server, "/old") == "/old #1")

        let again = try ReplayTransport(cassette: cassette, mode: .reRecordAll(NetworkClient.makeDefaultTransport()))
        let client = NetworkClient(transport: again)
        // "/old" is in the cassette, and asked for again from the server: its second answer.
        #expect(try await Self.text(client, server, "/old") == "/old #2")
        #expect(try await Self.text(client, server, "/new") == "/new #3")
        #expect(server.statistics.requestsReceived == 3)
        #expect(again.replayedCount == 0)
        let entries = try HAR.Archive.read(from: cassette).log.entries
        #expect(entries.map(\.request.url) == [server.url("/old").absoluteString, server.url("/new").absoluteString])
        #expect(entries.map(\.response.content.text) == ["/old #2", "/new #3"])
    }

    @Test("replay only: a missing cassette is a typed error at once")
    func missingCassette() {
        #expect(throws: CassetteError.self) {
            try ReplayTransport(cassette: temporaryCassetteFolder().appendingPathComponent("none.har"))
        }
    }
}
