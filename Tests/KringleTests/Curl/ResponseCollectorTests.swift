import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// Header lines as curl delivers them, and how a response's header blocks are kept.
@Suite(.generousTimeLimit) struct CurlHeaderLineTests {
    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\n", CurlHeaderLine.statusLine),
        ("HTTP/2 404 \r\n", .statusLine),
        ("Content-Type: text/plain\r\n", .field(name: "Content-Type", value: "text/plain")),
        ("X-Pad:   spaced\t \r\n", .field(name: "X-Pad", value: "spaced")),
        ("Set-Cookie: a=b, c=d\r\n", .field(name: "Set-Cookie", value: "a=b, c=d")),
        ("X-Empty:\r\n", .field(name: "X-Empty", value: "")),
        ("X-Colons: a:b:c\n", .field(name: "X-Colons", value: "a:b:c")),
        ("  folded part\r\n", .continuation("folded part")),
        ("\tfolded tab\r\n", .continuation("folded tab")),
        ("\r\n", .end),
        ("\n", .end),
        ("garbage\r\n", .other),
    ])
    func classifies(line: String, expected: CurlHeaderLine) {
        #expect(CurlHeaderLine(line) == expected)
    }

    @Test func latin1BytesAreKept() {
        let bytes: [UInt8] = Array("X-Name: caf".utf8) + [0xE9] + Array("\r\n".utf8)

        let line = bytes.withUnsafeBytes { CurlHeaderLine(bytes: $0) }

        #expect(line == .field(name: "X-Name", value: "café"))
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK", "HTTP/1.0 404 Not Found", "HTTP/2 200 ", "HTTP/3 204",
        "HTTP/1.1 200", "HTTP/1.1 200 ", "HTTP/1.1 599 Whatever \u{7F} bytes",
    ])
    func acceptsStatusLines(_ line: String) {
        #expect(CurlHeaderLine(line + "\r\n") == .statusLine)
    }

    @Test(arguments: [
        ("Http/1.1 200 OK", "upper case"), ("http/1.1 200 OK", "upper case"), ("HTTP/1.2 200 OK", "version"),
        ("HTTP/2.0 200 OK", "version"), ("HTTP/11 200 OK", "version"), ("HTTP/1.1", "status code"),
        ("HTTP/1.1 20 OK", "status code"), ("HTTP/1.1 2000 OK", "status code"), ("HTTP/1.1  200 OK", "status code"),
        ("HTTP/1.1 abc OK", "status code"), ("HTTP/1.1 200OK", "space"), ("HTTP/1.1\t200 OK", "version"),
    ])
    func refusesMalformedStatusLines(_ line: String, problem: String) throws {
        guard case .malformedStatusLine(let reason) = CurlHeaderLine(line + "\r\n") else {
            Issue.record("\(line.debugDescription) was accepted")
            return
        }
        #expect(reason.contains(problem))
        #expect(reason.contains(line.debugDescription))
    }

    @Test func aMalformedStatusLineIsQuotedShortAndEscaped() throws {
        let line = "Http/1.1 200 " + String(repeating: "\u{1B}", count: 500)

        guard case .malformedStatusLine(let reason) = CurlHeaderLine(line) else {
            Issue.record("accepted")
            return
        }

        #expect(reason.count < 300)
        #expect(!reason.contains("\u{1B}"))
        #expect(reason.contains(#"\u{1B}"#))
    }

    /// Feeds `lines` to a new collector; returns it and the first line it refused.
    private func collect(_ lines: [String]) -> (ResponseCollector, refused: String?) {
        let collector = ResponseCollector()
        for line in lines where !collector.receive(CurlHeaderLine(line)) {
            return (collector, line)
        }
        return (collector, nil)
    }

    @Test func theLastBlockGivesTheHeadersAndFieldsAfterItAreTrailers() {
        let (collector, refused) = collect([
            "HTTP/1.1 100 Continue", "",  // interim response
            "HTTP/1.1 200 Connection established", "Proxy-Agent: p", "",  // proxy CONNECT answer
            "HTTP/1.1 200 OK", "Set-Cookie: a=1", "X-Long: one", " two", "Set-Cookie: b=2", "",
            "X-Checksum: abc123", "X-Folded: a", "\tb", "X-Checksum: again",  // trailers after a chunked body
        ])

        #expect(refused == nil)
        #expect(collector.malformation == nil)
        #expect(collector.headers.fields.map(\.name) == ["Set-Cookie", "X-Long", "Set-Cookie"])
        #expect(collector.headers.values(for: "set-cookie") == ["a=1", "b=2"])
        #expect(collector.headers["X-Long"] == "one two")
        #expect(collector.trailers.values(for: "x-checksum") == ["abc123", "again"])
        #expect(collector.trailers["X-Folded"] == "a b")
    }

    @Test func aResponseWithoutTrailersHasNone() {
        let (collector, _) = collect(["HTTP/1.1 200 OK", "Content-Length: 0", ""])

        #expect(collector.trailers.fields.isEmpty)
        #expect(collector.headers["Content-Length"] == "0")
    }

    @Test(arguments: [
        (["Http/1.1 200 OK", "X-A: 1", ""], "Http/1.1 200 OK"),
        (["ICY 200 OK", "X-A: 1", ""], "ICY 200 OK"),
        (["HTTP/1.1 100 Continue", "", "http/1.1 200 OK", "X-A: 1", ""], "http/1.1 200 OK"),
        (["HTTP/1.1 200 OK", "HTTP/1.1 200 OK", ""], "HTTP/1.1 200 OK"),
    ])
    func refusesABlockThatDoesNotStartWithAStatusLine(_ lines: [String], refusedLine: String) {
        let (collector, refused) = collect(lines)

        #expect(refused == refusedLine)
        #expect(collector.malformation != nil)
    }
}

/// How curl's buffered bodies are kept: in a `Data`, or in a mapping of their own when the
/// announced length is large.
@Suite(.generousTimeLimit) struct BodyBufferTests {
    private static func append(_ data: Data, to buffer: inout BodyBuffer) {
        data.withUnsafeBytes { buffer.append($0) }
    }

    @Test(arguments: [
        (0, true, false), (100 << 10, true, false), (BodyBuffer.mappingThreshold, false, false),
        (BodyBuffer.mappingThreshold, true, true),
    ])
    func keepsEveryByteInOrder(reserving capacity: Int, isExact: Bool, mapped: Bool) {
        var buffer = BodyBuffer()
        buffer.reserve(capacity, isExact: isExact)
        let chunks = (0..<5).map { patternedData(count: 16_384 + $0) }
        for chunk in chunks { Self.append(chunk, to: &buffer) }

        #expect(buffer.isMapped == mapped)
        #expect(buffer.count == chunks.reduce(0) { $0 + $1.count })
        #expect(buffer.takeContents() == chunks.reduce(Data(), +))
    }

    @Test func aMappedBodyOutlivesItsBufferAndCopiesWhenShared() {
        let sent = patternedData(count: 70_000)
        var received: Data
        do {
            var buffer = BodyBuffer()
            buffer.reserve(BodyBuffer.mappingThreshold, isExact: true)
            #expect(buffer.isMapped)
            Self.append(sent, to: &buffer)
            received = buffer.takeContents()
            #expect(!buffer.isMapped, "the mapping went to the Data")
            #expect(buffer.takeContents() == sent, "taking it again gives the same bytes")
        }
        let copy = received

        received[0] ^= 0xFF
        #expect(copy == sent, "a write to one Data never shows in another")
        #expect(received != sent)
    }

    @Test func moreThanAnnouncedMovesIntoAGrowingBody() {
        let announced = BodyBuffer.mappingThreshold
        var buffer = BodyBuffer()
        buffer.reserve(announced, isExact: true)
        let first = Data(repeating: 0xA5, count: announced - 3)
        let beyond = Data("past the announced length".utf8)
        Self.append(first, to: &buffer)
        Self.append(beyond, to: &buffer)

        #expect(!buffer.isMapped)
        #expect(buffer.count == first.count + beyond.count)
        let contents = buffer.takeContents()
        #expect(contents.prefix(first.count) == first)
        #expect(contents.suffix(beyond.count) == beyond)
    }

    @Test func aReservationAfterTheFirstBytesChangesNothing() {
        var buffer = BodyBuffer()
        Self.append(Data("early".utf8), to: &buffer)
        buffer.reserve(BodyBuffer.mappingThreshold, isExact: true)
        Self.append(Data(" and late".utf8), to: &buffer)

        #expect(!buffer.isMapped)
        #expect(buffer.takeContents() == Data("early and late".utf8))
    }

    @Test func aLargeAnnouncedBodyArrivesWholeThroughTheClient() async throws {
        let body = DownloadTests.fiftyMegabytes
        let server = try LoopbackServer { _ in .data(body) }
        defer { server.shutdown() }
        let client = TransportUnderTest.curl.client()

        let received = try await client.get(server.clientEndpoint("/big.bin"), as: Data.self).valueWithin(60)

        #expect(received.count == body.count)
        #expect(received == body, "the body differs from the served bytes")
    }
}
