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

/// Which engine `NetworkClient()` picks, and that it works.
@Suite("The default transport", .generousTimeLimit)
struct DefaultTransportTests {
    @Test func aNewClientUsesThePlatformsBestEngine() {
        #if canImport(Darwin)
        #expect(NetworkClient().transport is URLSessionTransport)
        #else
        #expect(NetworkClient().transport is CurlTransport)
        #endif
        #expect(type(of: NetworkClient.makeDefaultTransport()) == type(of: NetworkClient().transport))
    }

    @Test func aClientThatIsNotKeptFinishesItsRequest() async throws {
        let server = try LoopbackServer { request in
            request.path == "/start"
                ? .redirect(to: "/cat") : .json(#"{"name": "Tom", "mood": "purring"}"#).delayed(by: 0.1)
        }
        defer { server.shutdown() }

        // Nothing holds the client or its transport but the request in flight.
        let cat = try await NetworkClient().get(server.clientEndpoint("/start"), as: ClientCat.self).valueWithin()

        #expect(cat.name == "Tom")
        #expect(server.statistics.requestsReceived == 2)
    }
}
