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

/// What a request's time limit becomes for URLSession.
@Suite("URLSessionTransport's time limits", .generousTimeLimit)
struct URLSessionTimeLimitTests {
    /// FoundationNetworking hands libcurl `Int(timeoutInterval) * 1000`, which an infinite
    /// interval would trap in; no limit becomes a week.
    @Test(arguments: [0, -1, TimeInterval.infinity, 1e300])
    func noLimitBecomesAWeek(timeout: TimeInterval) {
        let request = HTTPRequest(url: URL(string: "http://127.0.0.1/")!, timeout: timeout)
        #expect(URLRequest(request).timeoutInterval == 7 * 24 * 3600)
    }

    /// With `timeout = 0` (no limit) the session got a limit of one second before.
    @Test func aClientWithoutATimeLimitWaitsLongerThanASecond() async throws {
        let server = try LoopbackServer { _ in .json(#"{"name": "Tom", "mood": "purring"}"#).delayed(by: 1.5) }
        defer { server.shutdown() }
        var configuration = NetworkClient.Configuration()
        configuration.timeout = 0
        let client = NetworkClient(configuration: configuration, transport: URLSessionTransport())

        let cat = try await client.get(server.clientEndpoint("/cat"), as: ClientCat.self).valueWithin(60)

        #expect(cat.name == "Tom")
    }

    /// The client has the cache; the session has none, and a request that asks for a stored
    /// response only must still reach the client's cache, not fail in URLSession.
    @Test func theRequestsCachePolicyIsNotPassedToTheSession() throws {
        let request = try ValidatedRequest(
            HTTPRequest(url: URL(string: "http://127.0.0.1/")!, cachePolicy: .cacheOnly))
        #expect(URLRequest(request.request).cachePolicy == .returnCacheDataDontLoad)
        #expect(URLSessionTransport.sessionRequest(request).cachePolicy == .useProtocolCachePolicy)
    }
}
