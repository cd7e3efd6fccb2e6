import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A logger may block on a request it makes with the client it logs for (issue 41, item 9).
///
/// Each case blocks on an event that comes from a thread of the transport's, where the client
/// used to call the logger: the request of a redirect's hop, a response, a failure, a
/// response the cache revalidated. The logger's own request needs that thread too.
@Suite("Logging: a logger that blocks on its own request", .timeLimit(.minutes(3)))
struct BlockingLoggerTests {
    /// The event the logger blocks on, and the request that leads to it.
    enum BlockingPoint: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// `.requestSent` of the hop after a 302, decided on the thread the 302 arrived on.
        case redirectHopSent
        /// `.responseReceived`.
        case responseReceived
        /// `.failure` of a 404.
        case failure
        /// `.cacheAnswered` after a 304 revalidated the stored response.
        case cacheRevalidated

        var testDescription: String { rawValue }

        /// The path the call asks for.
        var path: String {
            switch self {
            case .redirectHopSent: return "/redirect"
            case .responseReceived: return "/target"
            case .failure: return "/missing"
            case .cacheRevalidated: return "/cached"
            }
        }

        /// Whether the logger blocks on `event`.
        func blocks(on event: KringleLogEvent) -> Bool {
            switch (self, event) {
            case (.redirectHopSent, .requestSent(_, let url, _)): return url.value.path == "/target"
            case (.responseReceived, .responseReceived(_, let url, _, _, _, _, _)): return url.value.path == "/target"
            case (.failure, .failure(_, let url, _)): return url.value.path == "/missing"
            case (.cacheRevalidated, .cacheAnswered(_, _, _, let status)): return status == .revalidated
            default: return false
            }
        }
    }

    /// A logger that, on the first event `point` names, gets `/nested` with the same client and
    /// waits for it, as a logger that looks something up might.
    final class NestingLogger: KringleLogger {
        let point: BlockingPoint
        let client = Box<NetworkClient?>(nil)
        let nestedEndpoint: ClientTestEndpoint
        /// What the nested request gave, once the logger has made it.
        let nested = Box<Result<Data, any Error>?>(nil)

        init(point: BlockingPoint, nestedEndpoint: ClientTestEndpoint) {
            self.point = point
            self.nestedEndpoint = nestedEndpoint
        }

        func log(_ event: KringleLogEvent) {
            guard point.blocks(on: event), let client = client.value else { return }
            let first = nested.withLock { slot in
                guard slot == nil else { return false }
                slot = .failure(CancellationError())  // taken: a nested call logs too
                return true
            }
            guard first else { return }
            // Bounded: a deadlock fails the test after 30 s instead of hanging the run.
            let result = Result { try client.get(nestedEndpoint, as: Data.self).wait(timeout: 30) }
            nested.withLock { $0 = result }
        }
    }

    @Test(
        "a logger that waits for a request of the same client does not deadlock it",
        arguments: TransportUnderTest.allCases, BlockingPoint.allCases)
    func loggerWaitingForItsOwnRequest(_ transport: TransportUnderTest, _ point: BlockingPoint) async throws {
        let server = try LoopbackServer { request in
            switch request.path {
            case "/redirect": return .redirect(to: "/target")
            case "/target": return .text("target")
            case "/nested": return .text("nested")
            case "/cached":
                guard request.header("If-None-Match") == "\"v1\"" else {
                    return .text("cached").addingHeader("ETag", "\"v1\"").addingHeader("Cache-Control", "no-cache")
                }
                return LoopbackServer.Response.status(304).addingHeader("ETag", "\"v1\"")
            default: return .status(404)
            }
        }
        defer { server.shutdown() }
        let logger = NestingLogger(point: point, nestedEndpoint: server.clientEndpoint("/nested"))
        let client = transport.client { configuration in
            configuration.logger = logger
            configuration.cache = HTTPCache.memory()
        }
        logger.client.withLock { $0 = client }
        let endpoint = server.clientEndpoint(point.path)
        if point == .cacheRevalidated {
            // Stored first; the call below revalidates it.
            #expect(try await client.get(endpoint, as: Data.self).valueWithin(60) == Data("cached".utf8))
        }

        let outcome = await client.get(endpoint, as: Data.self).outcome(within: 60)

        let nested = try #require(logger.nested.value, "the logger never saw the event")
        #expect(try nested.get() == Data("nested".utf8))
        switch point {
        case .redirectHopSent, .responseReceived: #expect(try outcome.get() == Data("target".utf8))
        case .cacheRevalidated: #expect(try outcome.get() == Data("cached".utf8))
        case .failure:
            #expect(outcome.kringleError?.caseName == "unacceptableStatusCode", "\(outcome)")
        }
    }
}
