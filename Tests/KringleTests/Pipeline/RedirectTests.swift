import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// One redirect rule: a status and a method, and what the next hop must look like.
struct RedirectRuleCase: Sendable, CustomTestStringConvertible {
    var status: Int
    var method: HTTPMethod
    /// The method of the second hop.
    var nextMethod: String
    /// Whether the second hop carries the first hop's body.
    var keepsBody: Bool

    var testDescription: String {
        "\(status) \(method) → \(nextMethod)\(keepsBody ? " with body" : " without body")"
    }
}

@Suite("Redirects followed by the client", .generousTimeLimit)
struct RedirectTests {
    @Test(
        "RFC 6454 origins: scheme, host and port",
        arguments: [
            ("http://a.example/x", "http://a.example/y?z", true),
            ("http://a.example", "http://a.example:80", true),
            ("https://a.example", "https://a.example:443/p", true),
            ("http://A.Example", "http://a.example", true),
            ("http://a.example", "https://a.example", false),
            ("http://a.example", "http://b.example", false),
            ("http://a.example:8080", "http://a.example:8081", false),
            ("http://a.example:443", "https://a.example", false),
            ("http://127.0.0.1:8080", "http://localhost:8080", false),
        ])
    func origins(_ lhs: String, _ rhs: String, same: Bool) {
        #expect(Redirect.sameOrigin(clientURL(lhs), clientURL(rhs)) == same)
        #expect(Redirect.sameOrigin(clientURL(rhs), clientURL(lhs)) == same)
    }

    /// A server that redirects `/redirect?status=…&to=…` and records every request; any other
    /// path answers 200 with a short text.
    private static func redirectingServer() throws -> (LoopbackServer, ReceivedRequests) {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            guard request.path == "/redirect" else { return .text("landed") }
            let items = request.queryItems
            let status = items.first { $0.name == "status" }?.value.flatMap(Int.init) ?? 302
            let location = items.first { $0.name == "to" }?.value ?? "/landing"
            return .redirect(to: location, status: status)
        }
        return (server, received)
    }

    private static func redirect(
        on server: LoopbackServer, status: Int = 302, to location: String,
        headers: [String: String] = [:]
    ) -> ClientTestEndpoint {
        server.clientEndpoint(
            "/redirect",
            query: [
                URLQueryItem(name: "status", value: "\(status)"),
                URLQueryItem(name: "to", value: location),
            ], headers: headers)
    }

    static let rules: [RedirectRuleCase] = [
        .init(status: 301, method: .post, nextMethod: "GET", keepsBody: false),
        .init(status: 302, method: .post, nextMethod: "GET", keepsBody: false),
        .init(status: 303, method: .post, nextMethod: "GET", keepsBody: false),
        .init(status: 303, method: .put, nextMethod: "GET", keepsBody: false),
        .init(status: 303, method: .patch, nextMethod: "GET", keepsBody: false),
        .init(status: 303, method: .delete, nextMethod: "GET", keepsBody: false),
        .init(status: 303, method: .head, nextMethod: "HEAD", keepsBody: false),
        .init(status: 307, method: .post, nextMethod: "POST", keepsBody: true),
        .init(status: 308, method: .post, nextMethod: "POST", keepsBody: true),
        .init(status: 307, method: .put, nextMethod: "PUT", keepsBody: true),
        .init(status: 308, method: .patch, nextMethod: "PATCH", keepsBody: true),
        .init(status: 301, method: .put, nextMethod: "PUT", keepsBody: true),
        .init(status: 302, method: .delete, nextMethod: "DELETE", keepsBody: false),
        .init(status: 301, method: .get, nextMethod: "GET", keepsBody: false),
    ]

    @Test("method and body on the next hop", arguments: TransportUnderTest.allCases, rules)
    func methodAndBody(_ transport: TransportUnderTest, rule: RedirectRuleCase) async throws {
        let (server, received) = try Self.redirectingServer()
        defer { server.shutdown() }
        let sendsBody = ![HTTPMethod.get, .head, .delete].contains(rule.method)
        let body: RequestBody? = sendsBody ? .json(ClientCat(name: "Tom", mood: "moved")) : nil
        let endpoint = Self.redirect(on: server, status: rule.status, to: "/landing")
        let response = try await transport.client()
            .request(rule.method, endpoint, body: body, as: Data.self)
            .valueWithin()

        #expect(response.statusCode == 200)
        #expect(response.url == server.url("/landing"))
        let requests = received.all
        try #require(requests.count == 2)
        #expect(requests[0].method == rule.method.rawValue)
        #expect(requests[1].method == rule.nextMethod)
        #expect(requests[1].path == "/landing")
        if rule.keepsBody {
            #expect(requests[1].body == requests[0].body)
            #expect(
                try JSONDecoder().decode(ClientCat.self, from: requests[1].body)
                    == ClientCat(name: "Tom", mood: "moved"))
            #expect(requests[1].header("Content-Type")?.hasPrefix("application/json") == true)
        } else {
            #expect(requests[1].body.isEmpty)
            #expect(requests[1].header("Content-Type") == nil)
        }
    }

    /// Where a relative `Location` sent from `/a/b/c` must lead.
    static let relativeLocations: [(location: String, target: String)] = [
        ("d", "/a/b/d"),
        ("./d", "/a/b/d"),
        ("../d", "/a/d"),
        ("/root", "/root"),
        ("?page=2", "/a/b/c?page=2"),
        ("d?x=%20y", "/a/b/d?x=%20y"),
    ]

    @Test("a relative Location resolves against the current URL", arguments: TransportUnderTest.allCases)
    func relativeLocation(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let location = LocationBox()
        let server = try LoopbackServer { request in
            received.append(request)
            return request.target == "/a/b/c" ? .redirect(to: location.value, status: 302) : .text("landed")
        }
        defer { server.shutdown() }
        let client = transport.client()
        for row in Self.relativeLocations {
            location.value = row.location
            let response = try await client.request(.get, server.clientEndpoint("/a/b/c"), as: Data.self).valueWithin()
            #expect(received.all.last?.target == row.target, "Location \(row.location)")
            #expect(response.url == server.url(row.target), "Location \(row.location)")
        }
    }

    @Test(
        "Authorization and a hand-set Cookie are dropped when the origin changes; other headers stay",
        arguments: TransportUnderTest.allCases)
    func crossOriginDropsCredentials(_ transport: TransportUnderTest) async throws {
        let (server, received) = try Self.redirectingServer()
        defer { server.shutdown() }
        let (other, otherReceived) = try Self.redirectingServer()
        defer { other.shutdown() }
        let headers = ["Authorization": "Bearer secret", "Cookie": "hand=made", "X-Custom": "kept"]
        let client = transport.client()

        // 127.0.0.1 → localhost, same port: another origin.
        let toLocalhost = server.localhostURL.appendingPathComponent("landing").absoluteString
        try await client.get(Self.redirect(on: server, to: toLocalhost, headers: headers)).valueWithin()
        // 127.0.0.1:a → 127.0.0.1:b: another origin.
        try await client.get(Self.redirect(on: server, to: other.url("/landing").absoluteString, headers: headers))
            .valueWithin()
        // 127.0.0.1 → 127.0.0.1: same origin, everything kept.
        try await client.get(Self.redirect(on: server, to: "/landing", headers: headers)).valueWithin()

        let requests = received.all
        try #require(requests.count == 5)
        let first = requests[0]
        #expect(first.header("Authorization") == "Bearer secret")
        #expect(first.header("Cookie") == "hand=made")

        let viaLocalhost = requests[1]
        #expect(viaLocalhost.header("Host")?.hasPrefix("localhost") == true)
        #expect(viaLocalhost.header("Authorization") == nil)
        #expect(viaLocalhost.header("Cookie") == nil)
        #expect(viaLocalhost.header("X-Custom") == "kept")
        #expect(viaLocalhost.header("Accept") == "application/json")

        let viaOtherPort = try #require(otherReceived.all.first)
        #expect(viaOtherPort.header("Authorization") == nil)
        #expect(viaOtherPort.header("Cookie") == nil)
        #expect(viaOtherPort.header("X-Custom") == "kept")

        let sameOrigin = requests[4]
        #expect(sameOrigin.path == "/landing")
        #expect(sameOrigin.header("Authorization") == "Bearer secret")
        #expect(sameOrigin.header("Cookie") == "hand=made")
    }

    @Test(
        "credentials dropped on leaving an origin do not come back on returning to it",
        arguments: TransportUnderTest.allCases)
    func credentialsStayDropped(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            let port = (request.header("Host") ?? "").split(separator: ":").last.map(String.init) ?? ""
            switch request.path {
            case "/start": return .redirect(to: "http://localhost:\(port)/bounce")
            case "/bounce": return .redirect(to: "http://127.0.0.1:\(port)/landing")
            default: return .text("landed")
            }
        }
        defer { server.shutdown() }
        let endpoint = server.clientEndpoint(
            "/start", headers: ["Authorization": "Bearer secret", "Cookie": "hand=made"])
        try await transport.client().get(endpoint).valueWithin()
        let requests = received.all
        #expect(requests.map(\.path) == ["/start", "/bounce", "/landing"])
        #expect(requests.map { $0.header("Authorization") } == ["Bearer secret", nil, nil])
        #expect(requests.map { $0.header("Cookie") } == ["hand=made", nil, nil])
    }

    /// A server whose `/hop/n` redirects to `/hop/n+1`, up to `/hop/<last>` which answers 200.
    private static func hoppingServer(last: Int = .max) throws -> (LoopbackServer, ReceivedRequests) {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            let number = Int(request.path.split(separator: "/").last ?? "") ?? 0
            return number >= last ? .text("hop \(number)") : .redirect(to: "/hop/\(number + 1)", status: 307)
        }
        return (server, received)
    }

    @Test(
        "more redirects than the maximum reject with tooManyRedirects after exactly that many hops",
        arguments: TransportUnderTest.allCases, [0, 1, 3, 10])
    func tooManyRedirects(_ transport: TransportUnderTest, maximum: Int) async throws {
        let (server, received) = try Self.hoppingServer()
        defer { server.shutdown() }
        let client = transport.client { configuration in
            if maximum != 10 { configuration.maximumRedirects = maximum }  // 10 is the default
        }
        let outcome = await client.get(server.clientEndpoint("/hop/0")).outcome()
        guard case .tooManyRedirects(let url)? = outcome.kringleError else {
            Issue.record("expected tooManyRedirects, got \(outcome)")
            return
        }
        #expect(url == server.url("/hop/\(maximum + 1)"))
        #expect(received.all.map(\.path) == (0...maximum).map { "/hop/\($0)" })
    }

    @Test("exactly the maximum number of redirects is fine", arguments: TransportUnderTest.allCases)
    func exactlyMaximum(_ transport: TransportUnderTest) async throws {
        let (server, received) = try Self.hoppingServer(last: 3)
        defer { server.shutdown() }
        let client = transport.client { $0.maximumRedirects = 3 }
        let response = try await client.request(
            .post, server.clientEndpoint("/hop/0"),
            body: .data(Data("payload".utf8), contentType: "text/plain"),
            as: Data.self
        ).valueWithin()
        #expect(response.value == Data("hop 3".utf8))
        #expect(response.url == server.url("/hop/3"))
        #expect(received.all.count == 4)
        #expect(received.all.allSatisfy { $0.method == "POST" && $0.bodyText == "payload" })
    }

    @Test("a 3xx without a usable Location is not followed", arguments: TransportUnderTest.allCases)
    func unusableLocation(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            switch request.path {
            case "/no-location": return .status(302)
            case "/ftp": return .redirect(to: "ftp://127.0.0.1/file", status: 302)
            default: return .redirect(to: "/elsewhere", status: 300)  // not a redirect the client follows
            }
        }
        defer { server.shutdown() }
        let client = transport.client()
        for (path, status) in [("/no-location", 302), ("/ftp", 302), ("/multiple-choices", 300)] {
            let outcome = await client.get(server.clientEndpoint(path)).outcome()
            guard case .unacceptableStatusCode(let code, let response)? = outcome.kringleError else {
                Issue.record("\(path): expected unacceptableStatusCode, got \(outcome)")
                continue
            }
            #expect(code == status, "\(path)")
            #expect(response.url == server.url(path))
        }
        #expect(received.all.map(\.path) == ["/no-location", "/ftp", "/multiple-choices"])
    }

    @Test("redirects are followed for StubTransport responses too")
    func stubbedRedirects() async throws {
        let transport = StubTransport()
        transport.stub(.post, "/old", with: StubTransport.Stub(status: 302, headers: ["Location": "new"]))
        transport.stub(.get, "/new", with: .json(#"{"name": "Tom", "mood": "moved"}"#))
        let client = NetworkClient(configuration: NetworkClient.Configuration(), transport: transport)
        let endpoint = ClientTestEndpoint(
            baseURL: clientURL("http://stub.example"), path: "/old",
            headers: ["Authorization": "Bearer x"])
        let response = try await client.request(.post, endpoint, body: .form([("a", "1")]), as: ClientCat.self)
            .valueWithin()
        #expect(response.value == ClientCat(name: "Tom", mood: "moved"))
        #expect(response.url == clientURL("http://stub.example/new"))
        let requests = transport.requests
        #expect(requests.map { $0.method } == ["POST", "GET"])
        #expect(
            requests.map { $0.url.absoluteString } == ["http://stub.example/old", "http://stub.example/new"])
        #expect(requests.last?.body == nil)
        #expect(requests.last?.headers["Authorization"] == "Bearer x")
    }
}

/// A `Location` a test changes between requests.
final class LocationBox: Sendable {
    private let storage = Box("")

    var value: String {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
