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

/// `URLSessionTransport.defaultConfiguration` keeps FoundationNetworking's connections reused.
@Suite("URLSessionTransport's connections", .generousTimeLimit)
struct URLSessionConnectionReuseTests {
    @Test func theDefaultConfigurationIsANewOneEachTimeWithFourConnectionsPerHostOnLinux() {
        // The example in `defaultConfiguration`'s documentation.
        let configuration = URLSessionTransport.defaultConfiguration
        configuration.httpAdditionalHeaders = ["X-Client": "reports"]
        let client = NetworkClient(transport: URLSessionTransport(configuration: configuration))

        #expect(client.transport is URLSessionTransport)
        #if canImport(FoundationNetworking)
        #expect(configuration.httpMaximumConnectionsPerHost == 4)
        #endif
        // Changing one changes no other transport's.
        #expect(URLSessionTransport.defaultConfiguration.httpAdditionalHeaders == nil)
    }

    #if canImport(FoundationNetworking)
    /// Eight threads, each waiting for its own request, leave moments with a single transfer
    /// running; with FoundationNetworking's default of 6 connections per host, libcurl closed two
    /// at each such moment (about 10 new connections per 100 requests).
    @Test func eightThreadsWaitingInTurnReuseAtMostFourConnections() async throws {
        let server = try LoopbackServer { _ in .json(#"{"name": "Tom", "mood": "purring"}"#) }
        defer { server.shutdown() }
        let client = NetworkClient(transport: URLSessionTransport())
        let endpoint = server.clientEndpoint("/cat")
        let failures = Box(0)
        let lanes = DispatchGroup()
        for _ in 0..<8 {
            lanes.enter()
            Thread.detachNewThread {
                for _ in 0..<30 {
                    do {
                        _ = try client.get(endpoint, as: ClientCat.self).wait()
                    } catch {
                        failures.withLock { $0 += 1 }
                    }
                }
                lanes.leave()
            }
        }
        // A bound for a run that has gone wrong, not a measurement.
        #expect(await onOwnThread { lanes.wait(timeout: .now() + 120) } == .success)

        #expect(failures.value == 0)
        #expect(server.statistics.requestsReceived == 240)
        #expect(server.statistics.connectionsAccepted <= 4, "\(server.statistics)")
    }
    #endif
}
