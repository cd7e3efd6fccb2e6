import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCurl

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

    @Test func onlyTheLastBlockCounts() {
        let collector = ResponseCollector()
        let lines = [
            "HTTP/1.1 100 Continue", "",  // interim response
            "HTTP/1.1 200 Connection established", "Proxy-Agent: p", "",  // proxy CONNECT answer
            "HTTP/1.1 200 OK", "Set-Cookie: a=1", "X-Long: one", " two", "Set-Cookie: b=2", "",
            "X-Trailer: ignored", "",  // trailers after a chunked body
        ]

        for line in lines {
            collector.receive(CurlHeaderLine(line))
        }

        #expect(collector.headers.fields.map(\.name) == ["Set-Cookie", "X-Long", "Set-Cookie"])
        #expect(collector.headers.values(for: "set-cookie") == ["a=1", "b=2"])
        #expect(collector.headers["X-Long"] == "one two")
    }
}
