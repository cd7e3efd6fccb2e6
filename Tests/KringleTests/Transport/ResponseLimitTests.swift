import Foundation
import Kringle
import KringlePromise
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Response limits: what a server can make a response cost", .generousTimeLimit)
struct ResponseLimitTests {
    /// 10,000,000 zero bytes, gzipped (9.7 KB): a small decompression bomb.
    private static let bomb: Data = {
        (try? Data(contentsOf: TestSupport.fixtures.appendingPathComponent("zeros-10MB.gz"))) ?? Data()
    }()

    /// The limit an outcome's `responseTooLarge` names, or a recorded issue.
    private static func crossedLimit<T>(_ outcome: Result<T, any Error>) -> ResponseLimits.Limit? {
        guard case .failure(KringleError.responseTooLarge(_, let limit)) = outcome else {
            Issue.record("expected responseTooLarge, got \(outcome)")
            return nil
        }
        return limit
    }

    private static func client(_ transport: TransportUnderTest, _ limits: ResponseLimits) -> NetworkClient {
        transport.client {
            $0.responseLimits = limits
            $0.maxRetryCount = 0
        }
    }

    @Test(
        "a body over maximumBodyBytes stops the transfer, with or without a Content-Length",
        arguments: TransportUnderTest.allCases, [false, true])
    func bodyBytes(_ transport: TransportUnderTest, chunked: Bool) async throws {
        let big = Data(repeating: 0x61, count: 3_000_000)
        let server = try LoopbackServer { request in
            let response = LoopbackServer.Response.data(big)
            return chunked ? response.withBehavior(.chunked(chunkSize: 65_536)) : response
        }
        defer { server.shutdown() }
        let client = Self.client(transport, ResponseLimits(maximumBodyBytes: 1_000_000))
        let outcome = await client.get(server.clientEndpoint("/big"), as: Data.self).outcome()
        #expect(Self.crossedLimit(outcome) == .bodyBytes(1_000_000))
        #expect("\(outcome)".contains("maximumBodyBytes (1000000 bytes)"))

        // Within the bound, the same body arrives whole.
        let roomy = Self.client(transport, ResponseLimits(maximumBodyBytes: 3_000_000))
        #expect(try await roomy.get(server.clientEndpoint("/big"), as: Data.self).valueWithin() == big)
    }

    @Test(
        "a HEAD, whose Content-Length announces a body that never comes, is not refused",
        arguments: TransportUnderTest.allCases)
    func head(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in .data(Data(count: 3_000_000)) }
        defer { server.shutdown() }
        let client = Self.client(transport, ResponseLimits(maximumBodyBytes: 1_000_000))
        let response = try await client.request(.head, server.clientEndpoint("/big"), as: Data.self).valueWithin()
        #expect(response.statusCode == 200 && response.body.isEmpty)
        #expect(response.headers["Content-Length"] == "3000000")
    }

    @Test("a gzip bomb stops at the decompression ratio", arguments: TransportUnderTest.allCases)
    func decompressionRatio(_ transport: TransportUnderTest) async throws {
        try #require(!Self.bomb.isEmpty, "fixture missing")
        let server = try LoopbackServer { _ in
            LoopbackServer.Response.data(Self.bomb).addingHeader("Content-Encoding", "gzip")
        }
        defer { server.shutdown() }
        let client = Self.client(transport, ResponseLimits(maximumDecompressionRatio: 100))
        let outcome = await client.get(server.clientEndpoint("/bomb"), as: Data.self).outcome()
        #expect(Self.crossedLimit(outcome) == .decompressionRatio(100))

        // Under the absolute bound alone it decodes in full (proof that the transport decodes).
        let lenient = Self.client(transport, ResponseLimits(maximumDecompressionRatio: 10_000))
        #expect(try await lenient.get(server.clientEndpoint("/bomb"), as: Data.self).valueWithin().count == 10_000_000)
        // And the absolute bound counts decoded bytes, not the 9.7 KB on the wire.
        let small = Self.client(
            transport, ResponseLimits(maximumBodyBytes: 1_000_000, maximumDecompressionRatio: 10_000))
        let outcomeSmall = await small.get(server.clientEndpoint("/bomb"), as: Data.self).outcome()
        #expect(Self.crossedLimit(outcomeSmall) == .bodyBytes(1_000_000))
    }

    @Test(
        "a download over maximumDownloadBytes stops, and the destination is left alone",
        arguments: TransportUnderTest.allCases)
    func downloadBytes(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in .data(Data(repeating: 0x62, count: 2_000_000)) }
        defer { server.shutdown() }
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kringle-limit-\(UUID().uuidString)")
        try Data("kept".utf8).write(to: destination)
        defer { try? FileManager.default.removeItem(at: destination) }

        let client = Self.client(transport, ResponseLimits(maximumBodyBytes: 10, maximumDownloadBytes: 500_000))
        let outcome = await client.download(server.clientEndpoint("/file"), to: destination).outcome()
        #expect(Self.crossedLimit(outcome) == .downloadBytes(500_000))
        #expect(try Data(contentsOf: destination) == Data("kept".utf8))

        // maximumBodyBytes does not bound a download: unbounded by default.
        let unbounded = Self.client(transport, ResponseLimits(maximumBodyBytes: 10))
        _ = try await unbounded.download(server.clientEndpoint("/file"), to: destination).valueWithin()
        #expect(try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int == 2_000_000)
    }

    @Test("an error's body is kept up to maximumErrorBodyBytes", arguments: TransportUnderTest.allCases)
    func errorBody(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in .data(Data(repeating: 0x63, count: 300_000), status: 500) }
        defer { server.shutdown() }
        let client = Self.client(transport, ResponseLimits(maximumErrorBodyBytes: 1_000))
        let outcome = await client.get(server.clientEndpoint("/fails"), as: Data.self).outcome()
        guard case .failure(KringleError.unacceptableStatusCode(500, let response)) = outcome else {
            Issue.record("expected a 500, got \(outcome)")
            return
        }
        #expect(response.body == Data(repeating: 0x63, count: 1_000))
    }

    @Test("a transport of the user's is held to the limits once its response arrived")
    func foreignTransport() async throws {
        let transport = StubTransport()
        transport.stub { _ in .init(status: 200, body: Data(count: 2_000)) }
        var configuration = NetworkClient.Configuration()
        configuration.responseLimits.maximumBodyBytes = 1_000
        let client = NetworkClient(configuration: configuration, transport: transport)
        let endpoint = ClientTestEndpoint(baseURL: URL(string: "https://api.example")!, path: "/x")
        #expect(Self.crossedLimit(await client.get(endpoint, as: Data.self).outcome()) == .bodyBytes(1_000))
    }

    @Test("the bounds' arithmetic")
    func arithmetic() {
        let limits = ResponseLimits(maximumBodyBytes: 100, maximumDownloadBytes: 1_000, maximumDecompressionRatio: 10)
        #expect(limits.crossed(decoded: 100, toFile: false) { nil } == nil)
        #expect(limits.crossed(decoded: 101, toFile: false) { nil } == .bodyBytes(100))
        #expect(limits.crossed(decoded: 101, toFile: true) { nil } == nil)
        #expect(limits.crossed(decoded: 1_001, toFile: true) { nil } == .downloadBytes(1_000))
        let ratio = ResponseLimits(maximumDecompressionRatio: 10)
        let start = ResponseLimits.ratioCheckStart
        #expect(ratio.crossed(decoded: start, toFile: true) { 1 } == nil, "small bodies are not held to the ratio")
        #expect(ratio.crossed(decoded: start + 1, toFile: true) { (start + 1) / 11 } == .decompressionRatio(10))
        #expect(ratio.crossed(decoded: start + 1, toFile: true) { start } == nil)
        #expect(ratio.crossed(decoded: start + 1, toFile: true) { nil } == nil, "unknown wire bytes: no ratio")
        #expect(ResponseLimits.default.maximumBodyBytes == 100_000_000)
        #expect(ResponseLimits.default.maximumDownloadBytes == nil)
        #expect(ResponseLimits.default.maximumErrorBodyBytes == 1 << 20)
    }
}
