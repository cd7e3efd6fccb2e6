import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

@Suite("Cancelling requests", .generousTimeLimit)
struct ClientCancellationTests {
    /// A server whose `/slow…` responses take 30 s (abandoned at shutdown) and whose other
    /// paths answer at once.
    private static func slowServer() throws -> LoopbackServer {
        try LoopbackServer { request in
            switch request.path {
            case "/redirect-to-slow": return .redirect(to: "/slow")
            case let path where path.hasPrefix("/slow"):
                return LoopbackServer.Response.json(#"{"name": "Tom", "mood": "late"}"#).heldUntilHangUp()
            default: return .json(#"{"name": "Tom", "mood": "quick"}"#)
            }
        }
    }

    @Test(
        "cancelling the returned promise rejects it once with cancelled and drops the connection",
        arguments: TransportUnderTest.allCases)
    func cancelReturnedPromise(_ transport: TransportUnderTest) async throws {
        let server = try Self.slowServer()
        defer { server.shutdown() }
        let client = transport.client()
        let promise = client.get(server.clientEndpoint("/slow"), as: ClientCat.self)
        let settlements = Counter()
        let observed = promise.always { settlements.increment() }
        #expect(await server.awaitStatistics { $0.requestsReceived == 1 }, "\(server.statistics)")

        promise.cancel()
        let outcome = await observed.outcome()
        #expect(outcome.isCancellation, "\(outcome)")
        #expect(promise.isCancelled)
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
        #expect(server.statistics.responsesCompleted == 0)
        promise.cancel()  // again: nothing more happens
        #expect(settlements.value == 1)

        // The client is still fine afterwards.
        #expect(try await client.get(server.clientEndpoint("/quick"), as: ClientCat.self).valueWithin().mood == "quick")
    }

    @Test(
        "cancelling a promise chained from the request cancels the request",
        arguments: TransportUnderTest.allCases)
    func cancelChainedPromise(_ transport: TransportUnderTest) async throws {
        let server = try Self.slowServer()
        defer { server.shutdown() }
        let client = transport.client()
        let request = client.get(server.clientEndpoint("/slow"), as: ClientCat.self)
        let chained = request.map { $0.name }.map { $0.count }
        let settlements = Counter()
        let observed = chained.always { settlements.increment() }
        #expect(await server.awaitStatistics { $0.requestsReceived == 1 }, "\(server.statistics)")

        chained.cancel()
        #expect(await observed.outcome().isCancellation)
        #expect(await request.outcome().isCancellation, "cancellation travels up the chain")
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
        #expect(server.statistics.responsesCompleted == 0)
        #expect(settlements.value == 1)
    }

    @Test("cancelling during the second hop of a redirect cancels that hop", arguments: TransportUnderTest.allCases)
    func cancelDuringRedirect(_ transport: TransportUnderTest) async throws {
        let server = try Self.slowServer()
        defer { server.shutdown() }
        let promise = transport.client().get(server.clientEndpoint("/redirect-to-slow"))
        #expect(await server.awaitStatistics { $0.requestsReceived == 2 }, "\(server.statistics)")

        promise.cancel()
        #expect(await promise.outcome().isCancellation)
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
        // Only the redirect ever completed.
        #expect(await server.awaitStatistics { $0.responsesCompleted >= 1 })
        #expect(await server.awaitStatistics { $0.responsesCompleted >= 1 })
        #expect(server.statistics.responsesCompleted == 1)
    }

    @Test("cancelling the Task that awaits .value cancels the request", arguments: TransportUnderTest.allCases)
    func cancelAwaitingTask(_ transport: TransportUnderTest) async throws {
        let server = try Self.slowServer()
        defer { server.shutdown() }
        let client = transport.client()
        let endpoint = server.clientEndpoint("/slow")
        let task = Task { try await client.get(endpoint, as: ClientCat.self).value }
        // A bound, not a measurement: a new Task may start late on a loaded machine.
        #expect(await server.awaitStatistics(within: 60) { $0.requestsReceived == 1 }, "\(server.statistics)")

        task.cancel()
        let result = await task.result
        #expect(result.isCancellation, "\(result)")
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
    }

    @Test(
        "cancelling at once rejects with cancelled and never completes a response",
        arguments: TransportUnderTest.allCases)
    func cancelImmediately(_ transport: TransportUnderTest) async throws {
        let server = try Self.slowServer()
        defer { server.shutdown() }
        let client = transport.client()
        let promise = client.get(server.clientEndpoint("/slow"))
        promise.cancel()
        #expect(await promise.outcome().isCancellation)
        // Whatever reached the server, no response completed; the client still works.
        #expect(try await client.get(server.clientEndpoint("/quick"), as: ClientCat.self).valueWithin().mood == "quick")
        #expect(await server.awaitStatistics { $0.responsesCompleted >= 1 })
        #expect(server.statistics.responsesCompleted == 1)
    }

    @Test("cancelling a settled request changes nothing", arguments: TransportUnderTest.allCases)
    func cancelAfterSettlement(_ transport: TransportUnderTest) async throws {
        let server = try Self.slowServer()
        defer { server.shutdown() }
        let promise = transport.client().get(server.clientEndpoint("/quick"), as: ClientCat.self)
        let cat = try await promise.valueWithin()
        promise.cancel()
        #expect(!promise.isCancelled)
        #expect(try await promise.valueWithin() == cat)
    }

    @Test("a blocking wait() on its own thread sees the cancellation", arguments: TransportUnderTest.allCases)
    func blockingWaitSeesCancellation(_ transport: TransportUnderTest) async throws {
        let server = try Self.slowServer()
        defer { server.shutdown() }
        let promise = transport.client().get(server.clientEndpoint("/slow"), as: ClientCat.self)
        let waited: Result<ClientCat, any Error> = await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: Result { try promise.wait(timeout: 30) })
            }.start()
            Thread {
                _ = server.waitForStatistics(timeout: 15) { $0.requestsReceived == 1 }
                promise.cancel()
            }.start()
        }
        #expect(waited.isCancellation, "\(waited)")
    }
}
