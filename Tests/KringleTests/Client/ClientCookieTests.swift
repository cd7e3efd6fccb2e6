import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

@Suite("Cookies through the client", .generousTimeLimit)
struct ClientCookieTests {
    @Test("a cookie set on a 302 is sent on the redirected request and after", arguments: TransportUnderTest.allCases)
    func loginRedirect(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            switch request.path {
            case "/login":
                return LoopbackServer.Response.redirect(to: "/home", status: 302)
                    .addingHeader("Set-Cookie", "session=abc123; Path=/; HttpOnly")
            default:
                return .text("welcome")
            }
        }
        defer { server.shutdown() }
        let client = transport.client()
        let form = RequestBody.form([("user", "tom"), ("password", "fish")])
        try await client.post(form, to: server.clientEndpoint("/login")).valueWithin()
        try await client.get(server.clientEndpoint("/profile")).valueWithin()

        let requests = received.all
        #expect(requests.map(\.path) == ["/login", "/home", "/profile"])
        #expect(requests.map { $0.headers(named: "Cookie") } == [[], ["session=abc123"], ["session=abc123"]])
    }

    /// An `HTTPRequest` may carry `Cookie` twice (an interceptor's); merged with the jar's, all
    /// of them go in one field (RFC 6265 §5.4), none lost.
    @Test("every Cookie field a request carries is merged with the jar's")
    func repeatedCookieFieldsAreMerged() async throws {
        struct TwoCookies: RequestInterceptor {
            func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest> {
                var request = request
                request.headers.add(name: "Cookie", value: "a=1")
                request.headers.add(name: "Cookie", value: "b=2")
                return Promise(request)
            }
        }
        let stub = StubTransport()
        stub.stub(.get, "/cats", with: .json("{}"))
        let jar = CookieJar()
        let url = URL(string: "http://cats.example/cats")!
        jar.store(setCookieHeaders: ["c=3; Path=/"], from: url)
        var configuration = NetworkClient.Configuration()
        configuration.cookieJar = jar
        configuration.interceptors = [TwoCookies()]
        let client = NetworkClient(configuration: configuration, transport: stub)

        try await client.get(ClientTestEndpoint(baseURL: URL(string: "http://cats.example")!, path: "/cats"))
            .valueWithin()

        let sent = try #require(stub.requests.first)
        #expect(sent.headers.values(for: "Cookie") == ["a=1; b=2; c=3"])
    }

    @Test("a redirect to another host does not carry the first host's cookies", arguments: TransportUnderTest.allCases)
    func crossHostRedirect(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            let port = (request.header("Host") ?? "").split(separator: ":").last.map(String.init) ?? ""
            switch request.path {
            case "/start":
                return LoopbackServer.Response.redirect(to: "http://localhost:\(port)/landing")
                    .addingHeader("Set-Cookie", "loopback=1; Path=/")
            case "/landing":
                return LoopbackServer.Response.text("landed").addingHeader("Set-Cookie", "local=2; Path=/")
            default:
                return .text("ok")
            }
        }
        defer { server.shutdown() }
        let jar = CookieJar()
        let client = transport.client { $0.cookieJar = jar }
        try await client.get(server.clientEndpoint("/start")).valueWithin()
        // Each host gets its own cookies back, and only those.
        try await client.get(server.clientEndpoint("/again")).valueWithin()
        try await client.get(ClientTestEndpoint(baseURL: server.localhostURL, path: "/again")).valueWithin()

        let requests = received.all
        try #require(requests.count == 4)
        #expect(requests[0].header("Cookie") == nil)
        #expect(requests[1].header("Host")?.hasPrefix("localhost") == true)
        #expect(requests[1].header("Cookie") == nil, "127.0.0.1's cookie leaked to localhost")
        #expect(requests[2].headers(named: "Cookie") == ["loopback=1"])
        #expect(requests[3].headers(named: "Cookie") == ["local=2"])
        #expect(Set(jar.allCookies.map(\.name)) == ["loopback", "local"])
    }

    @Test("Max-Age=0 deletes a cookie", arguments: TransportUnderTest.allCases)
    func maxAgeZeroDeletes(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            switch request.path {
            case "/set":
                return LoopbackServer.Response.text("set")
                    .addingHeader("Set-Cookie", "doomed=1; Path=/")
                    .addingHeader("Set-Cookie", "keeper=2; Path=/")
            case "/logout":
                return LoopbackServer.Response.text("bye").addingHeader("Set-Cookie", "doomed=; Path=/; Max-Age=0")
            default:
                return .text("ok")
            }
        }
        defer { server.shutdown() }
        let client = transport.client()
        try await client.get(server.clientEndpoint("/set")).valueWithin()
        try await client.get(server.clientEndpoint("/logout")).valueWithin()
        try await client.get(server.clientEndpoint("/check")).valueWithin()

        let requests = received.all
        try #require(requests.count == 3)
        #expect(requests[1].header("Cookie")?.contains("doomed=1") == true)
        #expect(requests[2].headers(named: "Cookie") == ["keeper=2"])
    }

    @Test("every Set-Cookie of one response is stored", arguments: TransportUnderTest.allCases)
    func severalSetCookies(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            guard request.path == "/set" else { return .text("ok") }
            return LoopbackServer.Response.text("set")
                .addingHeader("Set-Cookie", "a=1; Path=/")
                .addingHeader("Set-Cookie", "b=2; Path=/; Expires=Wed, 21 Oct 2037 07:28:00 GMT")
                .addingHeader("Set-Cookie", "c=3; Path=/; Max-Age=3600; HttpOnly")
                .addingHeader("Set-Cookie", "d=4; Path=/account")
        }
        defer { server.shutdown() }
        let jar = CookieJar()
        let client = transport.client { $0.cookieJar = jar }
        try await client.get(server.clientEndpoint("/set")).valueWithin()
        try await client.get(server.clientEndpoint("/next")).valueWithin()
        try await client.get(server.clientEndpoint("/account/settings")).valueWithin()

        #expect(Set(jar.allCookies.map(\.name)) == ["a", "b", "c", "d"])
        // The comma in the date did not split the cookie: it is persistent, with a future expiry
        // (capped at 400 days by RFC 6265bis §5.6.1, so not compared exactly).
        let expires = try #require(jar.allCookies.first { $0.name == "b" }?.expires)
        #expect(expires > Date())
        let requests = received.all
        try #require(requests.count == 3)
        let next = Set(try #require(requests[1].header("Cookie")).components(separatedBy: "; "))
        #expect(next == ["a=1", "b=2", "c=3"])
        let account = Set(try #require(requests[2].header("Cookie")).components(separatedBy: "; "))
        #expect(account == ["a=1", "b=2", "c=3", "d=4"])
    }

    @Test("a hand-set Cookie header is merged with the jar's cookies", arguments: TransportUnderTest.allCases)
    func handSetCookieMerged(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            return LoopbackServer.Response.text("ok").addingHeader("Set-Cookie", "jar=1; Path=/")
        }
        defer { server.shutdown() }
        let client = transport.client()
        try await client.get(server.clientEndpoint("/first")).valueWithin()
        try await client.get(server.clientEndpoint("/second", headers: ["Cookie": "hand=made"])).valueWithin()

        let requests = received.all
        try #require(requests.count == 2)
        #expect(requests[0].header("Cookie") == nil)
        let cookies = requests[1].headers(named: "Cookie")
        #expect(cookies.count == 1, "one Cookie field: \(cookies)")
        #expect(Set(cookies.first?.components(separatedBy: "; ") ?? []) == ["hand=made", "jar=1"])
    }

    @Test(
        "on a same-origin redirect the hand-set Cookie is merged with cookies set by the redirect",
        arguments: TransportUnderTest.allCases)
    func handSetCookieAcrossSameOriginRedirect(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            guard request.path == "/login" else { return .text("home") }
            return LoopbackServer.Response.redirect(to: "/home", status: 303).addingHeader(
                "Set-Cookie", "session=s1; Path=/")
        }
        defer { server.shutdown() }
        let endpoint = server.clientEndpoint("/login", headers: ["Cookie": "hand=made"])
        try await transport.client().post(RequestBody.form([("u", "tom")]), to: endpoint).valueWithin()

        let requests = received.all
        try #require(requests.count == 2)
        #expect(requests[0].headers(named: "Cookie") == ["hand=made"])
        let second = requests[1].headers(named: "Cookie")
        #expect(second.count == 1, "one Cookie field: \(second)")
        #expect(Set(second.first?.components(separatedBy: "; ") ?? []) == ["hand=made", "session=s1"])
    }

    @Test("cookieJar = nil turns cookies off; a hand-set Cookie is still sent", arguments: TransportUnderTest.allCases)
    func cookiesOff(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            return LoopbackServer.Response.redirect(to: "/landing")
                .addingHeader("Set-Cookie", "tracker=1; Path=/")
                .withStatusIfLanding(request.path)
        }
        defer { server.shutdown() }
        let client = transport.client { $0.cookieJar = nil }
        try await client.get(server.clientEndpoint("/start")).valueWithin()
        try await client.get(server.clientEndpoint("/again")).valueWithin()
        try await client.get(server.clientEndpoint("/hand", headers: ["Cookie": "hand=made"])).valueWithin()

        let requests = received.all
        #expect(requests.map(\.path) == ["/start", "/landing", "/again", "/landing", "/hand", "/landing"])
        #expect(
            requests.prefix(4).allSatisfy { $0.header("Cookie") == nil },
            "\(requests.map { $0.headers(named: "Cookie") })")
        #expect(requests[4].headers(named: "Cookie") == ["hand=made"])
        #expect(requests[5].headers(named: "Cookie") == ["hand=made"])
    }
}

extension LoopbackServer.Response {
    /// `self`, or a plain 200 with the same headers minus `Location` when `path` is `/landing`.
    fileprivate func withStatusIfLanding(_ path: String) -> Self {
        guard path == "/landing" else { return self }
        var copy = self
        copy.status = 200
        copy.headers.removeAll { $0.0 == "Location" }
        copy.body = Data("landed".utf8)
        return copy
    }
}
