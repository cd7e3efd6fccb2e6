import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore
@testable import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One comma-joined `Set-Cookie` value and the cookies it must split into.
struct SetCookieSplitCase: Sendable, CustomTestStringConvertible {
    var folded: String
    var cookies: [String]
    var note: String

    var testDescription: String { note }
}

@Suite("Folded Set-Cookie headers", .generousTimeLimit)
struct FoldedHeadersTests {
    static let splitCases: [SetCookieSplitCase] = [
        .init(folded: "a=1", cookies: ["a=1"], note: "one cookie"),
        .init(folded: "", cookies: [""], note: "an empty value stays one (empty) field"),
        // The documented ambiguous case: one header `a=b, c=d` cannot be told from two.
        .init(
            folded: "a=b, c=d", cookies: ["a=b", "c=d"], note: "ambiguous: one header a=b, c=d reads as two cookies"),
        .init(folded: "a=1, b=2, c=3", cookies: ["a=1", "b=2", "c=3"], note: "three folded cookies"),
        .init(folded: "a=1,b=2", cookies: ["a=1", "b=2"], note: "folded without a space"),
        .init(folded: "a=1,   b=2  ", cookies: ["a=1", "b=2"], note: "surrounding spaces are trimmed"),
        .init(
            folded: "a=1; Path=/; Expires=Wed, 21 Oct 2015 07:28:00 GMT",
            cookies: ["a=1; Path=/; Expires=Wed, 21 Oct 2015 07:28:00 GMT"],
            note: "an Expires date keeps its comma"),
        .init(
            folded: "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT, b=2; Expires=Thu, 22 Oct 2015 07:28:00 GMT; Path=/",
            cookies: [
                "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT", "b=2; Expires=Thu, 22 Oct 2015 07:28:00 GMT; Path=/",
            ],
            note: "two cookies with dates"),
        .init(
            folded: "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT,b=2",
            cookies: ["a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT", "b=2"],
            note: "a date then a cookie without a space"),
        .init(
            folded: "a=1; Expires=Sunday, 06-Nov-94 08:49:37 GMT",
            cookies: ["a=1; Expires=Sunday, 06-Nov-94 08:49:37 GMT"],
            note: "an RFC 850 date keeps its comma"),
        .init(folded: "a=x,y", cookies: ["a=x,y"], note: "a comma inside a value"),
        .init(folded: #"a="x, y""#, cookies: [#"a="x, y""#], note: "a comma inside a quoted value"),
        .init(folded: "id=a=b==; Path=/, next=1", cookies: ["id=a=b==; Path=/", "next=1"], note: "values with ="),
        .init(folded: "a=1, =bad", cookies: ["a=1, =bad"], note: "an empty name does not start a cookie"),
        .init(
            folded: "a=1, b c=2", cookies: ["a=1, b c=2"], note: "a name that is not a token does not start a cookie"),
        .init(
            folded: "a=1; HttpOnly, b=2; Secure", cookies: ["a=1; HttpOnly", "b=2; Secure"],
            note: "flags before a comma"),
    ]

    @Test("splitSetCookie", arguments: splitCases)
    func split(_ row: SetCookieSplitCase) {
        #expect(FoldedHeaders.splitSetCookie(row.folded) == row.cookies)
    }

    @Test("unfold splits Set-Cookie only and looks names up case-insensitively")
    func unfold() {
        let headers = FoldedHeaders.unfold([
            "set-cookie": "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT, b=2",
            "Content-Type": "text/plain",
            "X-Multi": "1, 2",
        ])
        #expect(headers.values(for: "Set-Cookie") == ["a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT", "b=2"])
        #expect(headers["content-type"] == "text/plain")
        #expect(headers.values(for: "x-multi") == ["1, 2"])
        #expect(headers.count == 4)
    }

    /// Set-Cookie lines with dates, as a server sends them.
    static let setCookieLines = [
        "a=1; Path=/; Expires=Wed, 21 Oct 2015 07:28:00 GMT",
        "b=2; Path=/",
        "c=3; Expires=Thu, 01 Jan 2037 00:00:00 GMT; HttpOnly",
        "d=4; Max-Age=60",
    ]

    @Test("several Set-Cookie lines arrive as separate values through URLSessionTransport, dates whole")
    func throughURLSessionTransport() async throws {
        let server = try LoopbackServer { _ in
            Self.setCookieLines.reduce(LoopbackServer.Response.text("cookies")) { $0.addingHeader("Set-Cookie", $1) }
                .addingHeader("X-Other", "kept")
        }
        defer { server.shutdown() }
        let transport = URLSessionTransport()
        let response = try await transport.send(HTTPRequest(url: server.url("/cookies"))).valueWithin()
        #expect(response.headers.values(for: "Set-Cookie") == Self.setCookieLines)
        #expect(response.headers.values(for: "set-cookie") == Self.setCookieLines)
        #expect(response.headers["x-other"] == "kept")

        let client = NetworkClient(
            configuration: {
                var c = NetworkClient.Configuration(); c.cookieJar = nil; return c
            }(),
            transport: transport)
        let viaClient = try await client.request(.get, server.clientEndpoint("/cookies"), as: Data.self).valueWithin()
        #expect(viaClient.headers.values(for: "Set-Cookie") == Self.setCookieLines)
    }

    @Test("the documented limit: one header `a=b, c=d` arrives as two cookies through URLSessionTransport")
    func ambiguousThroughURLSessionTransport() async throws {
        let server = try LoopbackServer { _ in LoopbackServer.Response.text("x").addingHeader("Set-Cookie", "a=b, c=d")
        }
        defer { server.shutdown() }
        let response = try await URLSessionTransport().send(HTTPRequest(url: server.url("/"))).valueWithin()
        #expect(response.headers.values(for: "Set-Cookie") == ["a=b", "c=d"])
    }
}
