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

/// Trailer fields after a chunked body (RFC 9112 §7.1.2): kept apart from the headers, and
/// never a reason for the process to end.
@Suite("Trailer fields", .generousTimeLimit)
struct TrailerTests {
    static let payload = String(repeating: "chunked payload ", count: 500)

    /// `/trailers` answers a chunked body followed by two `X-Checksum` trailer fields
    /// (announced in a `Trailer` header field), `/failing` the same with status 500, and
    /// anything else a chunked body without trailers.
    static func server() throws -> LoopbackServer {
        try LoopbackServer { request in
            switch request.path {
            case "/trailers", "/failing":
                return LoopbackServer.Response.text(payload, status: request.path == "/failing" ? 500 : 200)
                    .addingHeader("Trailer", "X-Checksum")
                    .withBehavior(.chunked(chunkSize: 1_000))
                    .addingTrailer("X-Checksum", "abc123")
                    .addingTrailer("X-Checksum", "second")
            default:
                return LoopbackServer.Response.text(payload).withBehavior(.chunked(chunkSize: 1_000))
            }
        }
    }

    struct Mismatch: Error, CustomStringConvertible {
        let description: String
    }

    /// Fetches `/trailers` from a server of its own with `NetworkClient()`, in a child process;
    /// throws unless the body and both trailers arrived.
    static func defaultClientKeepsTrailers() async throws {
        let server = try server()
        defer { server.shutdown() }
        let response = try await NetworkClient().request(.get, server.clientEndpoint("/trailers"), as: Data.self)
            .valueWithin()
        guard response.value == Data(payload.utf8), response.trailers.values(for: "X-Checksum") == ["abc123", "second"]
        else {
            throw Mismatch(description: "trailers: \(response.trailers)")
        }
    }

    @Test("a chunked body without trailers has none", arguments: TransportUnderTest.allCases)
    func noTrailers(_ transport: TransportUnderTest) async throws {
        let server = try Self.server()
        defer { server.shutdown() }

        let response = try await transport.make().send(HTTPRequest(url: server.url("/plain"))).valueWithin()

        #expect(String(decoding: response.body, as: UTF8.self) == Self.payload)
        #expect(response.trailers.fields.isEmpty)
        #expect(response.headers["Transfer-Encoding"] == "chunked")
    }

    @Test func curlTransportKeepsTrailersApartFromTheHeaders() async throws {
        let server = try Self.server()
        defer { server.shutdown() }

        let response = try await CurlTransport().send(HTTPRequest(url: server.url("/trailers"))).valueWithin()

        #expect(String(decoding: response.body, as: UTF8.self) == Self.payload)
        #expect(response.trailers.values(for: "x-checksum") == ["abc123", "second"])
        #expect(response.headers["X-Checksum"] == nil)
        #expect(response.headers["Trailer"] == "X-Checksum")
    }

    @Test func trailersReachTheClientsResponsesAndErrors() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let client = NetworkClient(transport: CurlTransport())

        let buffered = try await client.request(.get, server.clientEndpoint("/trailers"), as: Data.self).valueWithin()
        let failed = await client.get(server.clientEndpoint("/failing"), as: Data.self).outcome()

        #expect(buffered.trailers.values(for: "X-Checksum") == ["abc123", "second"])
        guard case .failure(KringleError.unacceptableStatusCode(500, let refused)) = failed else {
            Issue.record("expected a 500, got \(failed)")
            return
        }
        #expect(refused.trailers.values(for: "X-Checksum") == ["abc123", "second"])
    }

    @Test func aDownloadKeepsItsTrailers() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let directory = try StreamingScratchDirectory()
        defer { directory.remove() }
        let destination = directory.url.appendingPathComponent("body.txt")

        let response = try await NetworkClient(transport: CurlTransport())
            .download(server.clientEndpoint("/trailers"), to: destination).valueWithin()

        #expect(streamingContents(of: destination) == Data(Self.payload.utf8))
        #expect(response.trailers.values(for: "X-Checksum") == ["abc123", "second"])
    }

    @Test func theDefaultClientSurvivesATrailerResponseAndKeepsItsTrailers() async {
        await #expect(processExitsWith: .success, "NetworkClient() on a chunked response with trailers") {
            try await TrailerTests.defaultClientKeepsTrailers()
        }
    }

    #if canImport(FoundationNetworking)
    /// The FoundationNetworking limit that the README and `URLSessionTransport` document: its
    /// URLSession (Swift 6.3) traps on this response. When this test fails, FoundationNetworking
    /// has changed: update the documentation.
    @Test func urlSessionOnLinuxEndsTheProcessOnATrailerResponse() async {
        await #expect(processExitsWith: .signal(SIGILL), "URLSessionTransport on a response with trailers") {
            // Nothing here throws: an error thrown out of an exit test traps too.
            guard let server = try? TrailerTests.server() else { exit(2) }
            defer { server.shutdown() }
            _ = try? await URLSessionTransport().send(HTTPRequest(url: server.url("/trailers"))).valueWithin()
        }
    }
    #endif
}
