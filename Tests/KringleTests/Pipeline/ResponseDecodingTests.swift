import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

@Suite("Response decoding", .generousTimeLimit)
struct ResponseDecodingTests {
    /// A client whose StubTransport answers every request with `body`, and an endpoint for it.
    private static func stubbed(
        _ body: String,
        contentType: String = "application/json",
        configure: (inout NetworkClient.Configuration) -> Void = { _ in }
    ) -> (NetworkClient, ClientTestEndpoint) {
        let transport = StubTransport()
        transport.stub { _ in StubTransport.Stub(headers: ["Content-Type": contentType], body: Data(body.utf8)) }
        var configuration = NetworkClient.Configuration()
        configure(&configuration)
        let client = NetworkClient(configuration: configuration, transport: transport)
        return (client, ClientTestEndpoint(baseURL: clientURL("http://stub.example"), path: "/resource"))
    }

    /// The `decodingFailed` error of `outcome`, or an issue.
    private static func decodingFailure<T>(
        _ outcome: Result<T, any Error>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> (error: DecodingError, response: Response<Data>, description: String)? {
        guard case .decodingFailed(let error, let response)? = outcome.kringleError else {
            Issue.record("expected decodingFailed, got \(outcome)", sourceLocation: sourceLocation)
            return nil
        }
        return (error, response, KringleError.decodingFailed(error, response).description)
    }

    @Test("an empty body decodes into Void and into Data", arguments: TransportUnderTest.allCases, [200, 204])
    func emptyBodyIntoVoid(_ transport: TransportUnderTest, status: Int) async throws {
        let server = try LoopbackServer { _ in .status(status) }
        defer { server.shutdown() }
        let client = transport.client()
        try await client.get(server.clientEndpoint("/empty")).valueWithin()
        try await client.delete(server.clientEndpoint("/empty")).valueWithin()
        let response = try await client.request(.get, server.clientEndpoint("/empty"), as: Data.self).valueWithin()
        #expect(response.statusCode == status)
        #expect(response.value.isEmpty)
    }

    @Test(
        "decoding a value from an empty body fails and says the body was empty",
        arguments: TransportUnderTest.allCases)
    func emptyBodyIntoValue(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in .status(200) }
        defer { server.shutdown() }
        let outcome = await transport.client().get(server.clientEndpoint("/cat"), as: ClientCat.self).outcome()
        let failure = try #require(Self.decodingFailure(outcome))
        #expect(failure.response.statusCode == 200)
        #expect(failure.response.body.isEmpty)
        #expect(failure.response.url == server.url("/cat"))
        #expect(failure.description.lowercased().contains("empty"), "\(failure.description)")
        #expect(failure.description.contains("/cat"))
    }

    @Test(
        "a type mismatch names the coding path and expected type and shows the body",
        arguments: TransportUnderTest.allCases)
    func typeMismatch(_ transport: TransportUnderTest) async throws {
        let body = #"{"name": 5, "mood": "grumpy"}"#
        let server = try LoopbackServer { _ in .json(body) }
        defer { server.shutdown() }
        let outcome = await transport.client().get(server.clientEndpoint("/cat"), as: ClientCat.self).outcome()
        let failure = try #require(Self.decodingFailure(outcome))
        guard case .typeMismatch = failure.error else {
            Issue.record("expected a type mismatch, got \(failure.error)")
            return
        }
        #expect(failure.description.contains("name"), "\(failure.description)")
        #expect(failure.description.contains("String"), "\(failure.description)")
        #expect(failure.description.contains(body), "\(failure.description)")
        #expect(failure.response.body == Data(body.utf8))
    }

    @Test("a nested coding path is written as a path")
    func nestedPath() async throws {
        let body = #"{"cats": [{"name": "Tom", "mood": "ok"}, {"name": "Kit", "mood": 3}]}"#
        let (client, endpoint) = Self.stubbed(body)
        let outcome = await client.get(endpoint, as: LitterValue.self).outcome()
        let failure = try #require(Self.decodingFailure(outcome))
        #expect(failure.description.contains("cats[1].mood"), "\(failure.description)")
        #expect(failure.description.contains("String"), "\(failure.description)")
    }

    /// `Decodable & Sendable` wrapper for ``nestedPath()``.
    struct LitterValue: Decodable, Sendable { var cats: [ClientCat] }

    @Test("a missing key is named")
    func missingKey() async throws {
        let (client, endpoint) = Self.stubbed(#"{"name": "Tom"}"#)
        let outcome = await client.get(endpoint, as: ClientCat.self).outcome()
        let failure = try #require(Self.decodingFailure(outcome))
        #expect(failure.description.contains("\"mood\""), "\(failure.description)")
    }

    @Test("a long body shows only its start, with its size")
    func longBodySnippet() async throws {
        let body = "[" + String(repeating: "\"x\",", count: 2_000) + "1]"
        let (client, endpoint) = Self.stubbed(body)
        let outcome = await client.get(endpoint, as: [String].self).outcome()
        let failure = try #require(Self.decodingFailure(outcome))
        #expect(failure.description.contains(String(body.prefix(100))))
        #expect(!failure.description.contains(String(body.suffix(100))))
        #expect(failure.description.contains("\(body.utf8.count) bytes"), "\(failure.description)")
        #expect(failure.description.count < 1_000)
        #expect(failure.response.body.count == body.utf8.count)
    }

    @Test("a body that is not JSON fails to decode and shows what it was")
    func notJSON() async throws {
        let (client, endpoint) = Self.stubbed("<html>Bad gateway</html>", contentType: "text/html")
        let outcome = await client.get(endpoint, as: ClientCat.self).outcome()
        let failure = try #require(Self.decodingFailure(outcome))
        #expect(failure.description.contains("<html>Bad gateway</html>"))
    }

    @Test("a slow decode holds up neither the transport nor other requests", arguments: TransportUnderTest.allCases)
    func decodingOffTransportQueue(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { request in .json(#""\#(request.path)""#) }
        defer { server.shutdown() }
        let gate = DecodeGate()
        let client = transport.client { $0.decoder.userInfo[DecodeGate.key] = gate }
        let blocked = client.get(server.clientEndpoint("/blocked"), as: GatedString.self)
        #expect(await gate.waitUntilEntered(), "the gated decode never started")

        // While that decode is stuck, the same client and transport finish another request.
        let other = await client.get(server.clientEndpoint("/other"), as: Data.self).outcome()
        gate.open()
        #expect(try other.get() == Data(#""/other""#.utf8))
        #expect(try await blocked.valueWithin().value == "/blocked")
    }

    @Test("the client's decoder is used")
    func customDecoder() async throws {
        struct Owner: Decodable, Sendable, Equatable { var firstName: String; var catCount: Int }
        let (client, endpoint) = Self.stubbed(#"{"first_name": "Ann", "cat_count": 3}"#) {
            $0.decoder.keyDecodingStrategy = .convertFromSnakeCase
        }
        let owner = try await client.get(endpoint, as: Owner.self).valueWithin()
        #expect(owner == Owner(firstName: "Ann", catCount: 3))
    }
}

/// Holds a decode until the test opens it.
final class DecodeGate: Sendable {
    static let key = CodingUserInfoKey(rawValue: "kringle.tests.decodeGate")!

    private let entered = DispatchSemaphore(value: 0)
    private let opened = DispatchSemaphore(value: 0)

    /// Called by the decode: signals that it started, then waits (at most 20 s) to be let through.
    func pass() {
        entered.signal()
        _ = opened.wait(timeout: .now() + 20)
    }

    /// Lets the decode through.
    func open() {
        opened.signal()
    }

    /// Waits on a thread of its own until a decode has entered the gate.
    func waitUntilEntered(within seconds: TimeInterval = 15) async -> Bool {
        await onOwnThread { entered.wait(timeout: .now() + seconds) == .success }
    }
}

/// A string whose decoding waits at the ``DecodeGate`` in the decoder's user info.
struct GatedString: Decodable, Sendable {
    var value: String

    init(from decoder: any Decoder) throws {
        (decoder.userInfo[DecodeGate.key] as? DecodeGate)?.pass()
        value = try String(from: decoder)
    }
}
