import KringleTestSupport
import Testing

@testable import KringleTesting

@Suite("RFC 9112 request head parsing and framing")
struct RequestHeadParserTests {
    private func head(_ lines: String...) throws(RequestRejection) -> RequestHead {
        try RequestHeadParser.parse(lines: lines)
    }

    @Test func parsesRequestLineAndFields() throws {
        let parsed = try head("PATCH /a?b=c HTTP/1.1", "Host: example", "X-Empty:", "X-Padded: \t value \t")
        #expect(parsed.method == "PATCH")
        #expect(parsed.target == "/a?b=c")
        #expect(parsed.version == "HTTP/1.1")
        #expect(parsed.minorVersion == 1)
        #expect(parsed.headers.map(\.name) == ["Host", "X-Empty", "X-Padded"])
        #expect(parsed.headers.map(\.value) == ["example", "", "value"])
    }

    @Test(arguments: [
        ("§3.2.1 origin-form", "GET /x HTTP/1.1"),
        ("§3.2.2 absolute-form", "GET http://example.com/x HTTP/1.1"),
        ("§3.2.3 authority-form", "CONNECT example.com:443 HTTP/1.1"),
        ("§3.2.4 asterisk-form", "OPTIONS * HTTP/1.1"),
        ("§2.3 HTTP/1.0 needs no Host", "GET / HTTP/1.0"),
    ])
    func acceptsTargetForms(rule: String, requestLine: String) throws {
        let lines = requestLine.hasSuffix("1.0") ? [requestLine] : [requestLine, "Host: example.com"]
        #expect(throws: Never.self) { try RequestHeadParser.parse(lines: lines) }
    }

    @Test(arguments: [
        ("§3 missing version", ["GET /"], 400),
        ("§3 tab instead of space", ["GET\t/ HTTP/1.1", "Host: x"], 400),
        ("§3.2 space in target", ["GET /a b HTTP/1.1", "Host: x"], 400),
        ("§3.2 non-ASCII target", ["GET /ü HTTP/1.1", "Host: x"], 400),
        ("§2.3 lower-case protocol name", ["GET / http/1.1", "Host: x"], 400),
        ("§2.3 two-digit version", ["GET / HTTP/1.10", "Host: x"], 400),
        ("§2.3 HTTP/3", ["GET / HTTP/3.0", "Host: x"], 505),
        ("§3.2 no Host", ["GET / HTTP/1.1"], 400),
        ("§5.1 empty field name", ["GET / HTTP/1.1", "Host: x", ": v"], 400),
        ("§5.1 space before colon", ["GET / HTTP/1.1", "Host: x", "A : v"], 400),
        ("§5.2 obs-fold", ["GET / HTTP/1.1", "Host: x", "\tmore"], 400),
        ("§2.2 bare CR in value", ["GET / HTTP/1.1", "Host: x", "A: a\rb"], 400),
    ])
    func rejects(rule: String, lines: [String], status: Int) {
        #expect(throws: RequestRejection.self) { try RequestHeadParser.parse(lines: lines) }
        do {
            _ = try RequestHeadParser.parse(lines: lines)
        } catch {
            #expect(error.status == status, "\(rule): \(error.reason)")
        }
    }

    @Test(arguments: [
        (["Content-Length: 0"], RequestBodyFraming.none),
        ([], RequestBodyFraming.none),
        (["Content-Length: 42"], RequestBodyFraming.length(42)),
        (["Content-Length: 7, 7", "content-length: 7"], RequestBodyFraming.length(7)),
        (["Transfer-Encoding: chunked"], RequestBodyFraming.chunked),
        (["Transfer-Encoding: Chunked "], RequestBodyFraming.chunked),
    ])
    func determinesBodyFraming(fields: [String], expected: RequestBodyFraming) throws {
        let parsed = try RequestHeadParser.parse(lines: ["POST / HTTP/1.1", "Host: x"] + fields)
        #expect(try parsed.bodyFraming() == expected)
    }

    @Test(arguments: [
        ("HTTP/1.1", [String](), true),
        ("HTTP/1.1", ["Connection: close"], false),
        ("HTTP/1.1", ["Connection: upgrade, Close"], false),
        ("HTTP/1.0", [], false),
        ("HTTP/1.0", ["Connection: keep-alive"], true),
    ])
    func decidesPersistence(version: String, fields: [String], persistent: Bool) throws {
        let parsed = try RequestHeadParser.parse(lines: ["GET / \(version)", "Host: x"] + fields)
        #expect(parsed.wantsPersistentConnection == persistent)
    }

    @Test func expectContinueIsIgnoredForHTTP10() throws {
        let old = try head("POST / HTTP/1.0", "Expect: 100-continue")
        #expect(try old.expectsContinue() == false)
        let new = try head("POST / HTTP/1.1", "Host: x", "Expect: 100-Continue")
        #expect(try new.expectsContinue() == true)
    }
}
