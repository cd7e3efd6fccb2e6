import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("StubTransport", .generousTimeLimit)
struct StubTransportTests {
    private static let base = URL(string: "http://stub.example/api") ?? URL(fileURLWithPath: "/")

    private static func endpoint(_ path: String, query: [URLQueryItem] = [], headers: [String: String] = [:])
        -> ClientTestEndpoint
    {
        ClientTestEndpoint(baseURL: base, path: path, queryItems: query, headers: headers)
    }

    private static func client(
        _ transport: StubTransport, _ configure: (inout NetworkClient.Configuration) -> Void = { _ in }
    )
        -> NetworkClient
    {
        var configuration = NetworkClient.Configuration()
        configure(&configuration)
        return NetworkClient(configuration: configuration, transport: transport)
    }

    @Test("stubs match by method and path, ignoring the query")
    func methodAndPath() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/api/cats", with: .json(#"[{"name": "Tom", "mood": "listed"}]"#))
        transport.stub(.post, "/api/cats", with: .json(#"{"name": "Kit", "mood": "created"}"#, status: 201))
        let client = Self.client(transport)

        let cats = try await client.get(
            Self.endpoint("/cats", query: [URLQueryItem(name: "page", value: "2")]),
            as: [ClientCat].self
        ).valueWithin()
        #expect(cats == [ClientCat(name: "Tom", mood: "listed")])
        let created = try await client.request(
            .post, Self.endpoint("cats"), body: .json(ClientCat(name: "Kit", mood: "new")),
            as: ClientCat.self
        ).valueWithin()
        #expect(created.statusCode == 201)
        #expect(created.value == ClientCat(name: "Kit", mood: "created"))
        #expect(created.headers["content-type"] == "application/json")
    }

    @Test(
        "paths match as the endpoint gives them: unencoded, trailing slash included",
        arguments: [
            "/cats/Tom Cat", "/cats/", "/caf\u{E9}",
        ])
    func pathForms(_ path: String) async throws {
        let transport = StubTransport()
        transport.stub(.get, "/api" + path, with: .json(#""matched""#))
        let outcome = await Self.client(transport).get(Self.endpoint(path), as: String.self).outcome()
        #expect(
            try outcome.get() == "matched",
            "stub for \("/api" + path), request to \(transport.requests.last?.url.absoluteString ?? "-")")
    }

    @Test("a later stub for the same method and path replaces the earlier one")
    func replacing() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/api/mood", with: .json(#""first""#))
        transport.stub(.get, "/api/mood", with: .json(#""second""#))
        let mood = try await Self.client(transport).get(Self.endpoint("/mood"), as: String.self).valueWithin()
        #expect(mood == "second")
    }

    @Test("unmatched requests go to the handler; a throwing handler rejects")
    func handlerFallback() async throws {
        struct Refused: Error, Equatable {}
        let transport = StubTransport()
        transport.stub(.get, "/api/known", with: .json(#""stub""#))
        transport.stub { request in
            guard request.url.path != "/api/refused" else { throw Refused() }
            return .json(#""handler \#(request.method) \#(request.url.path)""#)
        }
        let client = Self.client(transport)
        #expect(try await client.get(Self.endpoint("/known"), as: String.self).valueWithin() == "stub")
        #expect(
            try await client.delete(Self.endpoint("/other"), as: String.self).valueWithin()
                == "handler DELETE /api/other")
        let outcome = await client.get(Self.endpoint("/refused")).outcome()
        #expect(outcome.failure is Refused, "\(outcome)")
    }

    @Test("an unmatched request without a handler rejects with NoStubError")
    func noStub() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/api/cats", with: .json("[]"))
        let outcome = await Self.client(transport).post(ClientCat(name: "a", mood: "b"), to: Self.endpoint("/cats"))
            .outcome()
        let error = try #require(outcome.failure as? StubTransport.NoStubError, "\(outcome)")
        #expect(error.method == "POST")
        #expect(error.url == URL(string: "http://stub.example/api/cats"))
        #expect(error.description.contains("POST http://stub.example/api/cats"))
    }

    @Test("every request is recorded as the client sent it")
    func recordsRequests() async throws {
        let transport = StubTransport()
        transport.stub { _ in StubTransport.Stub(status: 204) }
        let client = Self.client(transport) { $0.defaultHeaders["X-Client"] = "tests" }
        try await client.get(Self.endpoint("/a", query: [URLQueryItem(name: "q", value: "a b")])).valueWithin()
        try await client.put(RequestBody.form([("k", "v w")]), to: Self.endpoint("/b", headers: ["X-Endpoint": "1"]))
            .valueWithin()

        let requests = transport.requests
        try #require(requests.count == 2)
        #expect(requests[0].method == "GET")
        #expect(requests[0].url.absoluteString == "http://stub.example/api/a?q=a%20b")
        #expect(requests[0].headers["Accept"] == "application/json")
        #expect(requests[0].headers["X-Client"] == "tests")
        #expect(requests[0].body == nil)
        #expect(requests[1].method == "PUT")
        #expect(requests[1].body == Data("k=v%20w".utf8))
        #expect(requests[1].headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(requests[1].headers["X-Endpoint"] == "1")
    }

    @Test("a delay holds the answer back")
    func delay() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/api/slow", with: StubTransport.Stub(status: 200, body: Data("late".utf8), delay: 0.3))
        let clock = ContinuousClock()
        let start = clock.now
        let body = try await Self.client(transport).get(Self.endpoint("/slow"), as: Data.self).valueWithin()
        #expect(body == Data("late".utf8))
        #expect(clock.now - start >= .milliseconds(290))
    }

    @Test("a failure stub rejects with its error, with or without a delay", arguments: [0, 0.1])
    func failure(delay: Double) async throws {
        let transport = StubTransport()
        transport.stub(
            .get, "/api/offline",
            with: .failure(KringleError.transport(URLError(.notConnectedToInternet)), delay: delay))
        let outcome = await Self.client(transport).get(Self.endpoint("/offline")).outcome()
        guard case .transport(let underlying)? = outcome.kringleError else {
            Issue.record("expected transport, got \(outcome)")
            return
        }
        #expect((underlying as? URLError)?.code == .notConnectedToInternet)
    }

    @Test("cancelling during a stub's delay rejects with cancelled")
    func cancelDuringDelay() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/api/slow", with: StubTransport.Stub(status: 200, delay: 10))
        let promise = Self.client(transport).get(Self.endpoint("/slow"))
        let counter = Counter()
        let observed = promise.always { counter.increment() }
        promise.cancel()
        let outcome = await observed.outcome()
        #expect(outcome.isCancellation, "\(outcome)")
        promise.cancel()  // a second cancel changes nothing
        #expect(await promise.outcome().isCancellation)
        #expect(counter.value == 1)
    }

    @Test("stubbed responses are validated: an unacceptable status keeps its body")
    func validation() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/api/cats/Garfield", with: .json(#"{"error": "not before lunch"}"#, status: 403))
        let outcome = await Self.client(transport).get(Self.endpoint("/cats/Garfield"), as: ClientCat.self).outcome()
        guard case .unacceptableStatusCode(403, let response)? = outcome.kringleError else {
            Issue.record("expected unacceptableStatusCode(403), got \(outcome)")
            return
        }
        #expect(
            try JSONDecoder().decode(ClientAPIProblem.self, from: response.body)
                == ClientAPIProblem(error: "not before lunch"))
        #expect(response.url.absoluteString == "http://stub.example/api/cats/Garfield")
    }

    @Test("stubbed responses are decoded: type mismatches and empty bodies are decodingFailed")
    func decoding() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/api/bad", with: .json(#"{"name": true, "mood": "x"}"#))
        transport.stub(.get, "/api/empty", with: StubTransport.Stub(status: 200))
        transport.stub(.get, "/api/encoded", with: try .json(encoding: ClientCat(name: "Tom", mood: "encoded")))
        let client = Self.client(transport)

        let bad = await client.get(Self.endpoint("/bad"), as: ClientCat.self).outcome()
        guard case .decodingFailed(.typeMismatch, _)? = bad.kringleError else {
            Issue.record("expected a type mismatch, got \(bad)")
            return
        }
        #expect(bad.kringleError?.description.contains("name") == true)

        let empty = await client.get(Self.endpoint("/empty"), as: ClientCat.self).outcome()
        #expect(empty.kringleError?.caseName == "decodingFailed")
        #expect(empty.kringleError?.description.lowercased().contains("empty") == true)
        try await client.get(Self.endpoint("/empty")).valueWithin()

        #expect(
            try await client.get(Self.endpoint("/encoded"), as: ClientCat.self).valueWithin()
                == ClientCat(name: "Tom", mood: "encoded"))
    }

    @Test("stubbed responses feed the cookie jar")
    func cookies() async throws {
        let transport = StubTransport()
        transport.stub(
            .post, "/api/login",
            with: StubTransport.Stub(
                status: 303,
                headers: HTTPHeaders([
                    ("Location", "/api/home"), ("Set-Cookie", "session=1; Path=/"),
                    ("Set-Cookie", "theme=dark; Path=/"),
                ])
            ))
        transport.stub(.get, "/api/home", with: StubTransport.Stub(status: 200))
        try await Self.client(transport).post(RequestBody.form([("u", "tom")]), to: Self.endpoint("/login"))
            .valueWithin()
        let requests = transport.requests
        try #require(requests.count == 2)
        #expect(requests[0].headers["Cookie"] == nil)
        let cookie = try #require(requests[1].headers["Cookie"])
        #expect(Set(cookie.components(separatedBy: "; ")) == ["session=1", "theme=dark"])
    }

    @Test("redirect limits apply to stubbed responses")
    func stubbedTooManyRedirects() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/api/loop", with: StubTransport.Stub(status: 302, headers: ["Location": "/api/loop"]))
        let outcome = await Self.client(transport) { $0.maximumRedirects = 2 }.get(Self.endpoint("/loop")).outcome()
        guard case .tooManyRedirects(let url)? = outcome.kringleError else {
            Issue.record("expected tooManyRedirects, got \(outcome)")
            return
        }
        #expect(url.absoluteString == "http://stub.example/api/loop")
        #expect(transport.requests.count == 3)
    }
}
