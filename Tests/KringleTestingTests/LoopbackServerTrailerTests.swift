import Foundation
import KringleTestSupport
import KringleTesting
import Testing

/// Trailer fields and hand-written status lines, for testing how clients take them.
@Suite("Responses: trailers and odd status lines", .generousTimeLimit, .onOwnThread)
struct LoopbackServerTrailerTests {
    /// Everything the server sends for one `GET` request with `version` before it closes.
    private func exchange(_ server: LoopbackServer, version: String = "HTTP/1.1") throws -> String {
        let client = try RawClient(port: server.port)
        try client.send("GET / \(version)\r\nHost: x\r\nConnection: close\r\n\r\n")
        return String(decoding: client.readUntilClose(), as: UTF8.self)
    }

    @Test func trailersFollowTheLastChunkInOrder() throws {
        let server = try LoopbackServer { _ in
            .text("abc").addingTrailer("X-Checksum", "abc123").addingTrailer("X-Checksum", "again")
        }
        defer { server.shutdown() }

        let wire = try exchange(server)

        #expect(wire.contains("\r\nTransfer-Encoding: chunked\r\n"))
        #expect(!wire.contains("Trailer:"))
        #expect(wire.hasSuffix("\r\n\r\n3\r\nabc\r\n0\r\nX-Checksum: abc123\r\nX-Checksum: again\r\n\r\n"))
    }

    @Test func addingATrailerKeepsTheChosenChunkSize() throws {
        let server = try LoopbackServer { _ in
            .text("abcd").withBehavior(.chunked(chunkSize: 2)).addingTrailer("X-Done", "yes")
        }
        defer { server.shutdown() }

        #expect(try exchange(server).hasSuffix("\r\n\r\n2\r\nab\r\n2\r\ncd\r\n0\r\nX-Done: yes\r\n\r\n"))
    }

    @Test func anHTTP10ClientGetsNoTrailers() throws {
        let server = try LoopbackServer { _ in .text("abc").addingTrailer("X-Checksum", "abc123") }
        defer { server.shutdown() }

        let wire = try exchange(server, version: "HTTP/1.0")

        // HTTP/1.0 has no chunked coding, so the body ends with the connection, trailers unsent.
        #expect(wire.hasSuffix("\r\n\r\nabc"))
        #expect(!wire.contains("X-Checksum"))
    }

    @Test func theStatusLineGoesOutAsGiven() throws {
        let server = try LoopbackServer { request in
            request.path == "/no-reason" ? .text("ok").withStatusLine("HTTP/1.1 200") : .status(404)
        }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET /no-reason HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")

        let wire = String(decoding: client.readUntilClose(), as: UTF8.self)

        #expect(wire.hasPrefix("HTTP/1.1 200\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 2\r\n"))
        #expect(wire.hasSuffix("\r\n\r\nok"))
    }
}
