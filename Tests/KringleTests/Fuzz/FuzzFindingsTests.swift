import Foundation
import Kringle
import Testing

@testable import KringleCore

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

    // MARK: multipart

    @Test(
        "multipart names and filenames escape a quote, CR or LF that a combining mark follows",
        arguments: [
            ("a\"\u{301}b", "a%22\u{301}b"),
            ("x\r\n\u{301}", "x%0D%0A\u{301}"),
            ("\r\u{5C1}", "%0D\u{5C1}"),
            ("lf\n\u{301}only", "lf%0A\u{301}only"),
            ("say \"hi\"", "say %22hi%22"),
        ])
    func multipartEscapingByScalar(text: String, expected: String) {
        let escaped = MultipartEncoding.escaped(text)
        #expect(Array(escaped.utf8) == Array(expected.utf8))
    }

    @Test("the multipart finding: a name whose CR a combining mark follows")
    func multipartFinding() throws {
        // The name (up to the first NUL) of the input the multipart harness saved.
        let name = String(decoding: Self.bytes("ffffffffffffff0dd781d7d7d7d73dd7d7652f"), as: UTF8.self)
        let (body, _) = try MultipartEncoding.body(for: [.field(name: name, value: "v")], boundary: "b")
        let escapedName = name.utf8.flatMap { $0 == 0x0D ? Array("%0D".utf8) : [$0] }
        let expected =
            Array("--b\r\nContent-Disposition: form-data; name=\"".utf8) + escapedName
            + Array("\"\r\n\r\nv\r\n--b--\r\n".utf8)
        #expect(Array(try body.readAll()) == expected)
    }
}
