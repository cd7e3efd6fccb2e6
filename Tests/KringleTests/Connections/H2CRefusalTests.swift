import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// h2c to a server that speaks only HTTP/1.1 can never succeed: the error says so, and no
/// retry policy sends it again.
@Suite("h2c against an HTTP/1.1 server", .generousTimeLimit)
struct H2CRefusalTests {
    @Test("http2PriorKnowledge against LoopbackServer (HTTP/1.1 only): unsupportedConfiguration, not retried")
    func loopbackServerSpeaksOnlyHTTP1() async throws {
        let server = try LoopbackServer { _ in .text("HTTP/1.1 only") }
        defer { server.shutdown() }
        let client = NetworkClient(
            configuration: H2CRefusal.retrying,
            transport: CurlTransport(configuration: .init(httpVersion: .http2PriorKnowledge)))

        let error = await client.get(server.clientEndpoint("/"), as: Data.self).outcome(within: 60).failure

        H2CRefusal.expectRefused(error, url: server.url("/"))
        #expect(server.statistics.connectionsAccepted == 1, "\(server.statistics)")
    }
}

/// What the h2c refusal tests share.
enum H2CRefusal {
    /// A client configuration whose retry policy retries a lost response at once.
    static var retrying: NetworkClient.Configuration {
        var configuration = NetworkClient.Configuration()
        configuration.interceptors = [RetryPolicy(baseDelay: 0, maximumDelay: 0)]
        return configuration
    }

    /// Records an issue unless `error` is the refusal of h2c by the server at `url`.
    static func expectRefused(
        _ error: (any Error)?, url: URL, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case KringleError.unsupportedConfiguration(let reason)? = error else {
            Issue.record(
                "expected unsupportedConfiguration, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(reason.contains("does not speak h2c"), "\(reason)", sourceLocation: sourceLocation)
        #expect(reason.contains("127.0.0.1:\(url.port ?? 0)"), "\(reason)", sourceLocation: sourceLocation)
    }
}
