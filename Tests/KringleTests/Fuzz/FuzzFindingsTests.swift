import Foundation
import Testing

@testable import Kringle

/// Inputs that the libFuzzer harnesses of `Fuzz/` (Scripts/fuzz.sh) found breaking an
/// invariant, each fed to the parser that broke it. Every one is also a seed of its harness's
/// corpus (`Fuzz/Corpus/NAME/finding-…`), so that fuzzing replays it first.
///
/// All of them are the same mistake: a rule about bytes checked with `Character`s. Swift joins
/// a combining mark to the character before it, so `".\u{301}"` has no `"."` Character and
/// `hasPrefix(".")` is false, though the header's first byte is a dot.
@Suite("Fuzzer findings")
struct FuzzFindingsTests {
    /// The bytes of a finding as libFuzzer saved them.
    private static func bytes(_ hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map { offset in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
    }

    // MARK: set-cookie

    @Test(
        "RFC 6265 §5.2.3-§5.2.4: Domain drops a leading dot byte, Path keeps a leading slash byte, a combining mark after either",
        arguments: [
            ("a=b; Domain=.\u{349}es", ParsedSetCookie(name: "a", value: "b", domain: "\u{349}es")),
            ("a=b; Domain=..\u{301}x", ParsedSetCookie(name: "a", value: "b", domain: ".\u{301}x")),
            ("a=b; Path=/\u{301}x", ParsedSetCookie(name: "a", value: "b", path: "/\u{301}x")),
        ])
    func setCookieAttributeByteRules(header: String, expected: ParsedSetCookie) {
        let cookie = SetCookieParser.parse(header)
        #expect(cookie == expected)
        // By bytes too: String equality is canonical equivalence, the parser's rules are bytes.
        #expect(cookie?.domain.map { Array($0.utf8) } == expected.domain.map { Array($0.utf8) })
        #expect(cookie?.path.map { Array($0.utf8) } == expected.path.map { Array($0.utf8) })
    }

    // MARK: folded-headers

    @Test("FoldedHeaders trims a space that a combining mark follows (found as 20 20 cc 81 a9)")
    func foldedSetCookieTrimsBySpaceByte() {
        let value = String(decoding: Self.bytes("2020cc81a9"), as: UTF8.self)
        let pieces = FoldedHeaders.splitSetCookie(value)
        #expect(pieces.map { Array($0.utf8) } == [Self.bytes("cc81efbfbd")])  // U+0301 U+FFFD
    }

    // MARK: curl-header-line

    @Test("a continuation line of whitespace alone adds no trailing space to the field")
    func emptyContinuationAddsNothing() {
        // The finding, cut to its point: "Status:" then a line of one tab, then " -0?".
        let collector = ResponseCollector()
        for line in ["HTTP/2 200 ", "Status: 2", "\t", " -0?", "X-Other: 1", " \t ", ""] {
            #expect(collector.receive(CurlHeaderLine(line)))
        }
        #expect(collector.headers["Status"] == "2 -0?")
        #expect(collector.headers["X-Other"] == "1")
    }
}
