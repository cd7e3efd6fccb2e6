import Foundation
import Kringle
import Testing

@testable import KringleCore

@Suite("LineFramer")
struct LineFramerTests {
    /// The lines of `chunks` fed one after another, the last one included.
    private static func lines(_ chunks: [String], maximum: Int = 1_000) throws -> [String] {
        var framer = LineFramer(maximumLineLength: maximum)
        var lines: [String] = []
        for chunk in chunks {
            lines += try framer.lines(in: Array(chunk.utf8)).map { String(decoding: $0, as: UTF8.self) }
        }
        if let last = framer.finish() { lines.append(String(decoding: last, as: UTF8.self)) }
        return lines
    }

    @Test(
        "LF, CRLF and CR each end a line; a last line without an ending is delivered",
        arguments: [
            (["a\nb\n"], ["a", "b"]),
            (["a\r\nb\r\n"], ["a", "b"]),
            (["a\rb\r"], ["a", "b"]),
            (["a\nb"], ["a", "b"]),
            (["a\n\nb\n"], ["a", "", "b"]),
            (["a\r\n\r\nb"], ["a", "", "b"]),
            (["a\n\r\nb"], ["a", "", "b"]),
            (["a\r\rb"], ["a", "", "b"]),
            ([""], []),
        ])
    func endings(_ chunks: [String], _ expected: [String]) throws {
        #expect(try Self.lines(chunks) == expected)
    }

    @Test(
        "a line and a CRLF split across chunks make the same lines as one chunk",
        arguments: [
            (["ab", "c\n"], ["abc"]),
            (["a\r", "\nb"], ["a", "b"]),
            (["a\r", "\r\n"], ["a", ""]),
            (["a\r", "", "\nb\r", "\n"], ["a", "b"]),
            (["\n", "\n"], ["", ""]),
        ])
    func splitAcrossChunks(_ chunks: [String], _ expected: [String]) throws {
        #expect(try Self.lines(chunks) == expected)
        #expect(try Self.lines([chunks.joined()]) == expected)
    }

    @Test("a line longer than the maximum fails with its limit; one exactly as long passes")
    func maximumLength() throws {
        #expect(try Self.lines(["abcd\n"], maximum: 4) == ["abcd"])
        #expect(throws: LineFramer.LineTooLong(limit: 4)) { try Self.lines(["ab", "cde\n"], maximum: 4) }
    }
}
