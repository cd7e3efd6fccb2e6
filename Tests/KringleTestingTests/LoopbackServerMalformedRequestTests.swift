import Foundation
import KringleTestSupport
import KringleTesting
import Testing

@Suite("Malformed requests are refused, never crash the server", .generousTimeLimit, .onOwnThread)
struct LoopbackServerMalformedRequestTests {
    struct MalformedCase: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var status: Int
        init(_ name: String, _ text: String, _ status: Int = 400) {
            self.init(name, Array(text.utf8), status)
        }
        init(_ name: String, _ bytes: [UInt8], _ status: Int = 400) {
            self.name = name
            self.bytes = bytes
            self.status = status
        }
        var testDescription: String { name }
    }

    @Test(arguments: [
        MalformedCase("not HTTP at all", "GARBAGE\r\n\r\n"),
        MalformedCase("§3 request line without version", "GET /\r\n\r\n"),
        MalformedCase("§3 double space in request line", "GET  / HTTP/1.1\r\nHost: x\r\n\r\n"),
        MalformedCase("§3.1 method is not a token", "G@T / HTTP/1.1\r\nHost: x\r\n\r\n"),
        MalformedCase("§3.2 target is not a path or URL", "GET index.html HTTP/1.1\r\nHost: x\r\n\r\n"),
        MalformedCase("§3.2.4 asterisk-form with GET", "GET * HTTP/1.1\r\nHost: x\r\n\r\n"),
        MalformedCase("§3.2 missing Host in HTTP/1.1", "GET / HTTP/1.1\r\n\r\n"),
        MalformedCase("§3.2 two Host fields", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
        MalformedCase("§2.3 malformed version", "GET / HTTX/1.1\r\nHost: x\r\n\r\n"),
        MalformedCase("§2.3 unsupported major version", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
        MalformedCase("§5 field line without colon", "GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n"),
        MalformedCase("§5.1 whitespace before colon", "GET / HTTP/1.1\r\nHost : x\r\n\r\n"),
        MalformedCase("§5.2 obsolete line folding", "GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n  continued\r\n\r\n"),
        MalformedCase(
            "RFC 9110 §5.5 NUL in field value",
            Array("GET / HTTP/1.1\r\nHost: x\r\nX-A: a".utf8) + [0] + Array("b\r\n\r\n".utf8)),
        MalformedCase(
            "§6.3 Content-Length and Transfer-Encoding",
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        MalformedCase("§6.3 non-numeric Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"),
        MalformedCase("§6.3 negative Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n"),
        MalformedCase(
            "§6.3 conflicting Content-Length values", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 6\r\n\r\nhello!"
        ),
        MalformedCase(
            "§6.3 chunked is not the final coding",
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n"),
        MalformedCase(
            "§6.1 unknown transfer coding", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
            501),
        MalformedCase(
            "§6.1 Transfer-Encoding in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        MalformedCase(
            "§7.1 invalid chunk-size", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
        MalformedCase(
            "§7.1 chunk longer than its size",
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n"),
        MalformedCase(
            "§7.1 overflowing chunk-size",
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n"),
        MalformedCase(
            "RFC 9110 §10.1.1 unknown expectation",
            "POST / HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Length: 1\r\n\r\nx", 417),
        MalformedCase(
            "binary garbage",
            [0x00, 0xFF, 0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03, 0x0A, 0x0D, 0x0A]),
        MalformedCase(
            "header section too large",
            "GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 70_000))\r\n\r\n", 431),
    ])
    func refusesWithStatusAndCloses(_ testCase: MalformedCase) throws {
        let handled = Recorder<String>()
        let server = try LoopbackServer { request in
            handled.append(request.target)
            return .text("handled")
        }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send(testCase.bytes)
        let response = try client.readResponse()
        #expect(response.status == testCase.status)
        #expect(response.header("Connection") == "close")
        #expect(client.serverClosedConnection())
        #expect(handled.elements.isEmpty)
        #expect(server.statistics.requestsRejected == 1)
    }

    @Test func acceptsRepeatedIdenticalContentLengthsAndLeadingBlankLines() throws {
        let server = try LoopbackServer { request in .text(request.bodyText) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("\r\nPOST / HTTP/1.1\nHost: x\nContent-Length: 3, 3\nContent-Length: 3\n\nabc")
        #expect(try client.readResponse().text == "abc")
    }

    @Test func survivesRandomGarbageResetsAndHalfCloses() throws {
        let server = try LoopbackServer { _ in .text("still here") }
        defer { server.shutdown() }
        var random = SplitMix64(seed: 0x5EED)
        for round in 0..<60 {
            let client = try RawClient(port: server.port, timeout: 5)
            let length = Int(random.next() % 300)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if round % 3 == 0 {
                bytes = Array("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n".utf8) + bytes.prefix(10)
            }
            try? client.send(bytes)
            switch round % 4 {
            case 0: client.reset()
            case 1: client.close()
            case 2: client.shutdownWrite(); _ = client.readUntilClose()
            default: break  // left open until the end of the round
            }
        }
        let probe = try RawClient(port: server.port)
        try probe.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try probe.readResponse().text == "still here")
    }
}

/// A small deterministic pseudo-random generator, so the garbage is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
