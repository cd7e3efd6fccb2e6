import Dispatch
import Foundation
import Kringle
import KringlePromise
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// The curl transport's driving thread runs what a response's promise sets off (the decode,
/// a `done` on the promises' queue) before it goes back to libcurl (``DrivingSeat``). A
/// handler that blocks there must not stop the transport: these handlers block until another
/// request on the same transport has finished, which only a new driving thread can finish.
/// Each wait is bounded, so a deadlock fails the test rather than hang the suite.
@Suite(.generousTimeLimit) struct LentDrivingThreadTests {
    private static func endpoint(_ server: LoopbackServer, _ path: String) -> ClientTestEndpoint {
        ClientTestEndpoint(baseURL: server.url("/"), path: path)
    }

    private static func server() throws -> LoopbackServer {
        try LoopbackServer { request in
            // The slow answer keeps its transfer in flight while the other's handler blocks.
            request.path == "/slow" ? .json("{}").delayed(by: 0.2) : .json("{}")
        }
    }

    /// Sends a request whose `done` runs `handler` (with the client and the server) and
    /// expects the handler to return `true` within a minute.
    private static func expectHandler(
        of path: String = "first", before: (NetworkClient, LoopbackServer) -> Void = { _, _ in },
        _ handler: @escaping @Sendable (NetworkClient, LoopbackServer) -> Bool
    ) async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let client = NetworkClient(transport: CurlTransport())
        before(client, server)
        let finished = Promise<Bool>.pending()
        client.get(Self.endpoint(server, path)).done { _ in finished.fulfill(handler(client, server)) }
            .catch { finished.reject($0) }
        #expect(try await finished.valueWithin(60))
    }

    @Test func aHandlerThatWaitsOnASemaphoreForAnotherRequestDoesNotStopTheTransport() async throws {
        try await Self.expectHandler { client, server in
            let gate = DispatchSemaphore(value: 0)
            client.get(Self.endpoint(server, "second")).done { _ in gate.signal() }.catch { _ in }
            return gate.wait(timeout: .now() + 30) == .success
        }
    }

    @Test func aHandlerThatWaitsForATransferAlreadyInFlightDoesNotStopTheTransport() async throws {
        let slowArrived = DispatchSemaphore(value: 0)
        try await Self.expectHandler(of: "fast") { client, server in
            client.get(Self.endpoint(server, "slow")).done { _ in slowArrived.signal() }.catch { _ in }
        } _: { _, _ in
            slowArrived.wait(timeout: .now() + 30) == .success
        }
    }

    @Test func aHandlerThatCallsWaitOnTheSameClientGetsItsAnswer() async throws {
        try await Self.expectHandler { client, server in
            (try? client.get(Self.endpoint(server, "second")).wait(timeout: 30)) != nil
        }
    }

    /// Two answers written together arrive in one batch, whose second answer's decode and
    /// `done` wait aside while the first's `done` runs (``/KringlePromise/LentJobs``): each
    /// handler here waits for the other's, which only the watch's release of the jobs set
    /// aside lets run.
    @Test func handlersOfOneBatchThatWaitForEachOtherBothFinish() async throws {
        let arrived = Box(0)
        let bothArrived = DispatchSemaphore(value: 0)
        let server = try LoopbackServer { _ in
            let count = arrived.withLock { count in
                count += 1
                return count
            }
            if count == 2 { bothArrived.signal() } else { _ = bothArrived.wait(timeout: .now() + 30) }
            return .json("{}")
        }
        defer { server.shutdown() }
        let client = NetworkClient(transport: CurlTransport())
        let done = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let finished = (0..<2).map { index in
            let other = done[1 - index]
            let result = Promise<Bool>.pending()
            client.get(Self.endpoint(server, "pair/\(index)")).done { _ in
                done[index].signal()
                result.fulfill(other.wait(timeout: .now() + 30) == .success)
            }.catch { result.reject($0) }
            return result
        }
        for answer in finished {
            #expect(try await answer.valueWithin(60))
        }
    }

    @Test func aChainOfRequestsFromHandlersKeepsGoingAfterTheSeatChangesHands() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let client = NetworkClient(transport: CurlTransport())
        let remaining = Box(20)
        let finished = Promise<Int>.pending()
        // Every fifth handler waits for a request of its own, which only a new driving thread
        // can answer: the seat moves four times while the chain runs, and every request must
        // still be answered, once.
        @Sendable func next(_ count: Int) {
            client.get(Self.endpoint(server, "chain/\(count)")).done { _ in
                if count.isMultiple(of: 5) {
                    _ = try? client.get(Self.endpoint(server, "side/\(count)")).wait(timeout: 30)
                }
                let left = remaining.withLock { left in
                    left -= 1
                    return left
                }
                if left == 0 { finished.fulfill(count) } else { next(count + 1) }
            }.catch { finished.reject($0) }
        }
        next(1)
        #expect(try await finished.valueWithin(60) == 20)
        #expect(server.statistics.requestsReceived == 24)
    }
}
