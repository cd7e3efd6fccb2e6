import Foundation
import Kringle
import Testing

@testable import KringleCore

/// The `Link` header field parser, on RFC 8288's own examples (§3.5) and the shapes paged APIs
/// send.
@Suite("Link header fields (RFC 8288)")
struct WebLinkTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var fields: [String]
        var links: [(target: String, relations: [String])]
        var testDescription: String { fields.joined(separator: " | ") }
    }

    @Test(
        "links, their targets and relation types",
        arguments: [
            Row(
                fields: [#"<http://example.com/TheBook/chapter2>; rel="previous"; title="previous chapter""#],
                links: [("http://example.com/TheBook/chapter2", ["previous"])]),
            Row(fields: [#"</>; rel="http://example.net/foo""#], links: [("/", ["http://example.net/foo"])]),
            Row(fields: [##"</terms>; rel="copyright"; anchor="#foo""##], links: [("/terms", ["copyright"])]),
            Row(
                fields: [
                    #"</TheBook/chapter2>; rel="previous"; title*=UTF-8'de'letztes%20Kapitel, </TheBook/chapter4>; rel="next"; title*=UTF-8'de'n%c3%a4chstes%20Kapitel"#
                ],
                links: [("/TheBook/chapter2", ["previous"]), ("/TheBook/chapter4", ["next"])]),
            Row(
                fields: [#"<http://example.org/>; rel="start http://example.net/relation/other""#],
                links: [("http://example.org/", ["start", "http://example.net/relation/other"])]),
            Row(
                fields: [#"<https://example.org/>; rel="start", <https://example.org/index>; rel="index""#],
                links: [("https://example.org/", ["start"]), ("https://example.org/index", ["index"])]),
            // GitHub's form: unquoted targets with queries, several links in one field.
            Row(
                fields: [
                    #"<https://api.github.com/repositories/1/issues?page=2>; rel="next", <https://api.github.com/repositories/1/issues?page=5>; rel="last""#
                ],
                links: [
                    ("https://api.github.com/repositories/1/issues?page=2", ["next"]),
                    ("https://api.github.com/repositories/1/issues?page=5", ["last"]),
                ]),
            // Across fields, a token value, parameters and relation types in any case.
            Row(fields: ["</a>; REL=Next", "</b>;rel=prev"], links: [("/a", ["next"]), ("/b", ["prev"])]),
            // A comma or semicolon inside a quoted string or the target splits nothing.
            Row(
                fields: [#"</a,b;c>; title="x, y; z"; rel="next", </d>; rel=last"#],
                links: [("/a,b;c", ["next"]), ("/d", ["last"])]),
            // Only the first rel counts (§3.3); a link-value without <…> is skipped.
            Row(fields: [#"</a>; rel=next; rel=prev, junk; rel=next, </c>"#], links: [("/a", ["next"]), ("/c", [])]),
            Row(fields: ["", " , ", #"<unterminated; rel="next""#], links: []),
        ])
    func parse(_ row: Row) {
        let links = WebLink.links(in: row.fields)
        #expect(links.map(\.target) == row.links.map(\.target))
        #expect(links.map(\.relations) == row.links.map(\.relations))
    }

    @Test("a relative target resolves against the request URL (RFC 3986 §5)")
    func relative() throws {
        let base = try #require(URL(string: "https://api.example/v1/items?page=1"))
        let links = WebLink.links(in: [#"<?page=2>; rel="next", <../v2/x>; rel="alternate", </root>; rel="up""#])
        #expect(
            links.map { $0.url(relativeTo: base)?.absoluteString } == [
                "https://api.example/v1/items?page=2", "https://api.example/v2/x", "https://api.example/root",
            ])
    }

    @Test("parameters keep their values, unquoted, names in lower case")
    func parameters() {
        let link = WebLink.links(in: [#"</a>; Title="a \"quoted\" title"; type=text/html; rel=next"#]).first
        #expect(link?.parameters["title"] == #"a "quoted" title"#)
        #expect(link?.parameters["type"] == "text/html")
    }
}
