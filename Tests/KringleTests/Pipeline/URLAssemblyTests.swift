import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// One row of the URL assembly table: a base, a path and query items, and the URL they make.
struct URLAssemblyCase: Sendable, CustomTestStringConvertible {
    var base: String
    var path: String
    var query: [Pair] = []
    var expected: String

    struct Pair: Sendable {
        var name: String
        var value: String?
    }

    var queryItems: [URLQueryItem] {
        query.map { URLQueryItem(name: $0.name, value: $0.value) }
    }

    var testDescription: String {
        let items = query.map { "\($0.name)=\($0.value ?? "nil")" }.joined(separator: "&")
        return "\(base) + \(path)" + (items.isEmpty ? "" : " ? \(items)")
    }
}

@Suite("Endpoint URL assembly", .generousTimeLimit)
struct URLAssemblyTests {
    typealias Pair = URLAssemblyCase.Pair

    static let cases: [URLAssemblyCase] = [
        // Slashes between base and path never matter.
        .init(base: "http://h.example", path: "cats", expected: "http://h.example/cats"),
        .init(base: "http://h.example/", path: "cats", expected: "http://h.example/cats"),
        .init(base: "http://h.example", path: "/cats", expected: "http://h.example/cats"),
        .init(base: "http://h.example/", path: "/cats", expected: "http://h.example/cats"),
        // A path prefix in the base is kept.
        .init(base: "http://h.example/api/v2", path: "/cats", expected: "http://h.example/api/v2/cats"),
        .init(base: "http://h.example/api/v2/", path: "/cats", expected: "http://h.example/api/v2/cats"),
        .init(base: "http://h.example/api/v2", path: "cats", expected: "http://h.example/api/v2/cats"),
        .init(base: "http://h.example/api/v2/", path: "cats", expected: "http://h.example/api/v2/cats"),
        .init(base: "https://h.example:8443/api", path: "a/b/", expected: "https://h.example:8443/api/a/b/"),
        .init(base: "http://h.example/my%20api/", path: "/cats", expected: "http://h.example/my%20api/cats"),
        // An empty path (or just "/") leaves the base as it is.
        .init(base: "http://h.example", path: "", expected: "http://h.example"),
        .init(base: "http://h.example/api/v2", path: "", expected: "http://h.example/api/v2"),
        .init(base: "http://h.example/api/v2", path: "/", expected: "http://h.example/api/v2"),
        .init(base: "http://h.example/api/v2/", path: "", expected: "http://h.example/api/v2/"),
        // Paths are given unencoded.
        .init(base: "http://h.example", path: "/cats/Tom Cat", expected: "http://h.example/cats/Tom%20Cat"),
        .init(base: "http://h.example", path: "/café/🐱", expected: "http://h.example/caf%C3%A9/%F0%9F%90%B1"),
        .init(base: "http://h.example", path: "/a?b#c", expected: "http://h.example/a%3Fb%23c"),
        .init(base: "http://h.example", path: "/100% cat", expected: "http://h.example/100%25%20cat"),
        .init(base: "http://[::1]:8080/api", path: "/cats", expected: "http://[::1]:8080/api/cats"),
        // Bases off the plain fast path (user info, a fragment), and a scheme in capitals,
        // which comes out in lower case (RFC 3986 §6.2.2.1).
        .init(base: "http://tom:pw@h.example/api", path: "/cats", expected: "http://tom:pw@h.example/api/cats"),
        .init(base: "http://h.example/api#top", path: "/cats", expected: "http://h.example/api/cats#top"),
        .init(base: "HTTPS://h.example/api/", path: "cats", expected: "https://h.example/api/cats"),
        .init(base: "hTtP://h.example", path: "/cats", expected: "http://h.example/cats"),
        .init(base: "http://h.example/@me/api", path: "/cats", expected: "http://h.example/@me/api/cats"),
        // Query names and values: only RFC 3986 unreserved characters stay as they are.
        .init(
            base: "http://h.example", path: "/s", query: [Pair(name: "q", value: "a+b")],
            expected: "http://h.example/s?q=a%2Bb"),
        .init(
            base: "http://h.example", path: "/s", query: [Pair(name: "q", value: "a&b=c")],
            expected: "http://h.example/s?q=a%26b%3Dc"),
        .init(
            base: "http://h.example", path: "/s", query: [Pair(name: "q", value: "a b")],
            expected: "http://h.example/s?q=a%20b"),
        .init(
            base: "http://h.example", path: "/s", query: [Pair(name: "city", value: "Zürich")],
            expected: "http://h.example/s?city=Z%C3%BCrich"),
        .init(
            base: "http://h.example", path: "/s", query: [Pair(name: "a b&c", value: "~-._")],
            expected: "http://h.example/s?a%20b%26c=~-._"),
        .init(
            base: "http://h.example", path: "/s", query: [Pair(name: "flag", value: nil), Pair(name: "x", value: "")],
            expected: "http://h.example/s?flag&x="),
        .init(
            base: "http://h.example", path: "/s", query: [Pair(name: "x", value: "1"), Pair(name: "x", value: "2")],
            expected: "http://h.example/s?x=1&x=2"),
        // A query with no path: the base's own trailing slash, or its absence, is kept.
        .init(
            base: "http://h.example/api/", path: "", query: [Pair(name: "q", value: "1")],
            expected: "http://h.example/api/?q=1"),
        .init(
            base: "http://h.example/api", path: "/", query: [Pair(name: "q", value: "1")],
            expected: "http://h.example/api?q=1"),
        // One nameless item joins to nothing, and still makes a query.
        .init(
            base: "http://h.example", path: "/x", query: [Pair(name: "", value: nil)], expected: "http://h.example/x?"),
        // An escape already in the path is kept, before a query.
        .init(
            base: "http://h.example/", path: "/a%20b", query: [Pair(name: "q", value: "1")],
            expected: "http://h.example/a%20b?q=1"),
        // A query already in the base comes first.
        .init(
            base: "http://h.example/api?key=k", path: "/cats", query: [Pair(name: "q", value: "1")],
            expected: "http://h.example/api/cats?key=k&q=1"),
    ]

    @Test("assembles", arguments: cases)
    func assembles(_ row: URLAssemblyCase) throws {
        let url = try URLAssembly.url(base: clientURL(row.base), path: row.path, queryItems: row.queryItems)
        #expect(url.absoluteString == row.expected)
    }

    @Test(
        "a base without a scheme and host rejects with invalidRequest",
        arguments: [
            "file:///tmp/cats", "/relative/only", "cats", "mailto:tom@cats.example", "http:/no-host", "http://:80/api",
            "http://tom@/api",
        ])
    func invalidBase(_ base: String) {
        let error = #expect(throws: KringleError.self) {
            try URLAssembly.url(base: clientURL(base), path: "/cats", queryItems: [])
        }
        guard case .invalidRequest(let reason)? = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(reason.contains(base))
    }

    @Test(
        "an invalid base rejects the promise with invalidRequest and sends nothing",
        arguments: [
            "file:///tmp/cats", "/relative/only", "mailto:tom@cats.example",
        ])
    func invalidBaseThroughClient(_ base: String) async {
        let transport = StubTransport()
        transport.stub(handler: { _ in .json("{}") })
        let client = NetworkClient(transport: transport)
        let endpoint = ClientTestEndpoint(baseURL: clientURL(base), path: "/cats")
        let outcome = await client.get(endpoint, as: Data.self).outcome()
        #expect(outcome.kringleError?.caseName == "invalidRequest")
        #expect(transport.requests.isEmpty)
    }

    /// A base and an endpoint path on the loopback server, and the request-target it must
    /// receive.
    static let serverCases: [(base: String, path: String, target: String)] = [
        ("", "cats", "/cats"),
        ("/", "/cats", "/cats"),
        ("/api/v2", "/cats", "/api/v2/cats"),
        ("/api/v2/", "/cats", "/api/v2/cats"),
        ("/api/v2", "cats", "/api/v2/cats"),
        ("/api/v2/", "cats", "/api/v2/cats"),
        ("/api/v2", "/cats/Tom Cat/café", "/api/v2/cats/Tom%20Cat/caf%C3%A9"),
        ("", "", "/"),
    ]

    @Test("the server receives the assembled target", arguments: TransportUnderTest.allCases)
    func serverReceivesTarget(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer.echoing()
        defer { server.shutdown() }
        let client = transport.client()
        for row in Self.serverCases {
            let baseURL = row.base.isEmpty ? server.baseURL : server.url(row.base)
            let endpoint = ClientTestEndpoint(baseURL: baseURL, path: row.path)
            let echoed = try await client.get(endpoint, as: EchoedRequest.self).valueWithin()
            #expect(echoed.target == row.target, "base \(baseURL) path \(row.path)")
        }
    }

    @Test("default and endpoint query items reach the server encoded", arguments: TransportUnderTest.allCases)
    func queryItemsReachServer(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            return .status(204)
        }
        defer { server.shutdown() }
        let client = transport.client {
            $0.defaultQueryItems = [URLQueryItem(name: "key", value: "k&=1")]
        }
        let endpoint = server.clientEndpoint(
            "/search",
            query: [
                URLQueryItem(name: "q", value: "a+b c"),
                URLQueryItem(name: "city", value: "Zürich"),
                URLQueryItem(name: "x=y", value: "1"),
                URLQueryItem(name: "flag", value: nil),
            ])
        try await client.get(endpoint).valueWithin()

        let request = try #require(received.all.first)
        #expect(request.path == "/search")
        #expect(request.query == "key=k%26%3D1&q=a%2Bb%20c&city=Z%C3%BCrich&x%3Dy=1&flag")
        let decoded = request.queryItems.map { "\($0.name)|\($0.value ?? "nil")" }
        #expect(decoded == ["key|k&=1", "q|a+b c", "city|Zürich", "x=y|1", "flag|nil"])
    }
}
