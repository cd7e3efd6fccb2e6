import Foundation
import KringleTestSupport
import Testing

@testable import Kringle

/// Header lines as curl delivers them, and how a response's header blocks are kept.
@Suite struct CurlHeaderLineTests {
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
