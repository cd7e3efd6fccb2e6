import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// `NetworkClient(transport: CurlTransport())` end to end: the client does redirects and
/// cookies on top of the transport.
@Suite(.generousTimeLimit) struct CurlClientIntegrationTests {
    struct Item: Decodable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    struct Place: Endpoint {
        var baseURL: URL
        var path: String
    }

    @Test func clientDecodesFollowsRedirectsAndKeepsCookies() async throws {
        let cookies = Recorder<String?>()
        let server = try LoopbackServer { request in
            switch request.path {
            case "/old":
                return .redirect(to: "/item", status: 302).addingHeader("Set-Cookie", "seen=1; Path=/")
            case "/item":
                cookies.append(request.header("cookie"))
                return .json(#"{"id": 7, "name": "kringle"}"#)
            default:
                return .status(404)
            }
        }
        defer { server.shutdown() }
        let client = NetworkClient(transport: CurlTransport())

        let item = try await client.get(Place(baseURL: server.baseURL, path: "/old"), as: Item.self).valueWithin()

        #expect(item == Item(id: 7, name: "kringle"))
        #expect(cookies.elements == ["seen=1"])
    }

    @Test func clientDownloadsThroughTheTransport() async throws {
        let bytes = patternedData(count: 300_000)
        let server = try LoopbackServer { _ in .data(bytes) }
        defer { server.shutdown() }
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kringle-curl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        let client = NetworkClient(transport: CurlTransport())

        let response = try await client.download(Place(baseURL: server.baseURL, path: "/file"), to: destination)
            .valueWithin()

        #expect(response.value == destination)
        #expect(try Data(contentsOf: destination) == bytes)
    }

    @Test func theClientsTimeoutIsCurlsOwnOnTheRealClock() async throws {
        let server = try LoopbackServer { _ in .text("never").heldUntilHangUp() }
        defer { server.shutdown() }
        var configuration = NetworkClient.Configuration()
        configuration.timeout = 0.3
        let client = NetworkClient(configuration: configuration, transport: CurlTransport())

        let outcome = await client.get(Place(baseURL: server.baseURL, path: "/held"), as: Data.self).outcome()

        guard case .failure(KringleError.timedOut) = outcome else {
            Issue.record("expected timedOut, got \(outcome)")
            return
        }
        #expect(client.transportKeepsTime)
    }
}
