import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

@Suite("Request bodies and headers", .generousTimeLimit)
struct RequestBodyTests {
    /// A server that records every request and answers 204.
    private static func recordingServer() throws -> (LoopbackServer, ReceivedRequests) {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            return .status(204)
        }
        return (server, received)
    }

    @Test("Data is sent as it is, as application/octet-stream", arguments: TransportUnderTest.allCases)
    func dataAsIs(_ transport: TransportUnderTest) async throws {
        let (server, received) = try Self.recordingServer()
        defer { server.shutdown() }
        let bytes = Data([0x00, 0x01, 0x7B, 0xFF, 0xFE, 0x22])  // not UTF-8, not JSON
        try await transport.client().post(bytes, to: server.clientEndpoint("/upload")).valueWithin()

        let request = try #require(received.all.first)
        #expect(request.method == "POST")
        #expect(request.body == bytes)
        #expect(request.header("Content-Type") == "application/octet-stream")
    }

    @Test("a large body and an empty body arrive as sent", arguments: TransportUnderTest.allCases)
    func largeAndEmptyBodies(_ transport: TransportUnderTest) async throws {
        let (server, received) = try Self.recordingServer()
        defer { server.shutdown() }
        let large = patternedData(count: 3 << 20)
        let client = transport.client()
        try await client.put(large, to: server.clientEndpoint("/large")).valueWithin()
        try await client.post(Data(), to: server.clientEndpoint("/empty")).valueWithin()

        let requests = received.all
        try #require(requests.count == 2)
        #expect(requests[0].body.count == large.count)
        #expect(requests[0].body == large)
        #expect(requests[1].method == "POST")
        #expect(requests[1].body.isEmpty)
        #expect(requests[1].header("Content-Length") == "0")
    }

    @Test("a body's content type wins over a default Content-Type header", arguments: TransportUnderTest.allCases)
    func bodyContentTypeOverDefault(_ transport: TransportUnderTest) async throws {
        let (server, received) = try Self.recordingServer()
        defer { server.shutdown() }
        let client = transport.client { $0.defaultHeaders["Content-Type"] = "text/plain" }
        try await client.post(ClientCat(name: "Tom", mood: "typed"), to: server.clientEndpoint("/json")).valueWithin()
        try await client.post(RequestBody.form([("a", "1")]), to: server.clientEndpoint("/form")).valueWithin()

        let requests = received.all
        try #require(requests.count == 2)
        #expect(requests[0].headers(named: "Content-Type") == ["application/json"])
        #expect(requests[1].headers(named: "Content-Type") == ["application/x-www-form-urlencoded"])
    }

    @Test("a form is url-encoded with its content type", arguments: TransportUnderTest.allCases)
    func form(_ transport: TransportUnderTest) async throws {
        let (server, received) = try Self.recordingServer()
        defer { server.shutdown() }
        let form = RequestBody.form([("name", "Tom Cat"), ("mood", "sleepy & fed"), ("a+b", "=é"), ("empty", "")])
        try await transport.client().post(form, to: server.clientEndpoint("/login")).valueWithin()

        let request = try #require(received.all.first)
        #expect(request.bodyText == "name=Tom%20Cat&mood=sleepy%20%26%20fed&a%2Bb=%3D%C3%A9&empty=")
        #expect(request.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true)
    }

    @Test("raw data goes with the content type given", arguments: TransportUnderTest.allCases)
    func rawDataWithContentType(_ transport: TransportUnderTest) async throws {
        let (server, received) = try Self.recordingServer()
        defer { server.shutdown() }
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let body = RequestBody.data(png, contentType: "image/png")
        try await transport.client().put(body, to: server.clientEndpoint("/cats/Tom/photo")).valueWithin()

        let request = try #require(received.all.first)
        #expect(request.method == "PUT")
        #expect(request.body == png)
        #expect(request.header("Content-Type") == "image/png")
    }

    @Test("an Encodable goes as JSON with the client's encoder", arguments: TransportUnderTest.allCases)
    func encodableAsJSON(_ transport: TransportUnderTest) async throws {
        struct Feeding: Codable, Equatable {
            var catName: String
            var grams: Int
        }
        let (server, received) = try Self.recordingServer()
        defer { server.shutdown() }
        let client = transport.client { $0.encoder.keyEncodingStrategy = .convertToSnakeCase }
        try await client.patch(Feeding(catName: "Tom", grams: 80), to: server.clientEndpoint("/feed")).valueWithin()

        let request = try #require(received.all.first)
        #expect(request.method == "PATCH")
        #expect(request.header("Content-Type")?.hasPrefix("application/json") == true)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try decoder.decode(Feeding.self, from: request.body) == Feeding(catName: "Tom", grams: 80))
        #expect(request.bodyText.contains("\"cat_name\""))
    }

    @Test("a body that does not encode rejects with encodingFailed, its coding path kept, before anything is sent")
    func unencodableBody() async throws {
        let transport = StubTransport()
        transport.stub { _ in StubTransport.Stub(status: 204) }
        let client = NetworkClient(transport: transport)
        let endpoint = ClientTestEndpoint(baseURL: clientURL("http://stub.example"), path: "/cats")
        let outcome = await client.post(["weight": Double.nan], to: endpoint).outcome()
        guard case .encodingFailed(.invalidValue(_, let context))? = outcome.kringleError else {
            Issue.record("expected encodingFailed, got \(outcome)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["weight"])
        #expect("\(outcome.kringleError.map(String.init(describing:)) ?? "")".contains("weight"))
        #expect(transport.requests.isEmpty)
    }

    struct Refusal: Error, Equatable {}

    struct SelfRefusing: Encodable, Sendable {
        func encode(to encoder: any Encoder) throws { throw Refusal() }
    }

    @Test("an error thrown by the body's own encode(to:) is kept as the underlying error")
    func ownEncodingError() async throws {
        let transport = StubTransport()
        let client = NetworkClient(transport: transport)
        let endpoint = ClientTestEndpoint(baseURL: clientURL("http://stub.example"), path: "/cats")
        let outcome = await client.post(SelfRefusing(), to: endpoint).outcome()
        guard case .encodingFailed(.invalidValue(_, let context))? = outcome.kringleError else {
            Issue.record("expected encodingFailed, got \(outcome)")
            return
        }
        #expect(context.underlyingError as? Refusal == Refusal())
        #expect(transport.requests.isEmpty)
    }

    @Test("Accept: application/json by default, no Content-Type without a body", arguments: TransportUnderTest.allCases)
    func defaultAccept(_ transport: TransportUnderTest) async throws {
        let (server, received) = try Self.recordingServer()
        defer { server.shutdown() }
        try await transport.client().get(server.clientEndpoint("/cats")).valueWithin()

        let request = try #require(received.all.first)
        #expect(request.headers(named: "Accept") == ["application/json"])
        #expect(request.header("Content-Type") == nil)
        #expect(request.body.isEmpty)
    }

    @Test(
        "default headers are sent; endpoint headers win over them, whatever their case",
        arguments: TransportUnderTest.allCases)
    func headerPrecedence(_ transport: TransportUnderTest) async throws {
        let (server, received) = try Self.recordingServer()
        defer { server.shutdown() }
        let client = transport.client {
            $0.defaultHeaders["User-Agent"] = "KringleTests/1.0"
            $0.defaultHeaders["X-Client"] = "default"
            $0.defaultHeaders["x-trace"] = "default"
        }
        let plain = server.clientEndpoint("/plain")
        let overriding = server.clientEndpoint(
            "/overriding",
            headers: [
                "X-Client": "endpoint",
                "X-Trace": "endpoint",
                "Accept": "text/plain",
            ])
        try await client.get(plain).valueWithin()
        try await client.get(overriding).valueWithin()

        let requests = received.all
        try #require(requests.count == 2)
        #expect(requests[0].headers(named: "User-Agent") == ["KringleTests/1.0"])
        #expect(requests[0].headers(named: "X-Client") == ["default"])
        #expect(requests[0].headers(named: "X-Trace") == ["default"])
        #expect(requests[1].headers(named: "User-Agent") == ["KringleTests/1.0"])
        #expect(requests[1].headers(named: "X-Client") == ["endpoint"])
        #expect(requests[1].headers(named: "X-Trace") == ["endpoint"])
        #expect(requests[1].headers(named: "Accept") == ["text/plain"])
    }

    @Test("an endpoint's Content-Type wins over the body's", arguments: TransportUnderTest.allCases)
    func endpointContentTypeWins(_ transport: TransportUnderTest) async throws {
        let (server, received) = try Self.recordingServer()
        defer { server.shutdown() }
        let endpoint = server.clientEndpoint("/cats", headers: ["Content-Type": "application/vnd.cats+json"])
        try await transport.client().post(ClientCat(name: "Tom", mood: "ok"), to: endpoint).valueWithin()

        let request = try #require(received.all.first)
        #expect(request.headers(named: "Content-Type") == ["application/vnd.cats+json"])
        #expect(try JSONDecoder().decode(ClientCat.self, from: request.body) == ClientCat(name: "Tom", mood: "ok"))
    }
}
