import Dispatch
import Foundation
import KringleTestSupport
import KringleTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Concurrent connections", .generousTimeLimit)
struct LoopbackServerConcurrencyTests {
    /// Every handler waits until all 50 requests are inside handlers at once, which can only
    /// happen if the 50 connections are served concurrently.
    @Test(.onOwnThread) func fiftyConnectionsAreServedConcurrently() throws {
        let count = 50
        let inFlight = Box(0)
        let allArrived = DispatchSemaphore(value: 0)
        let server = try LoopbackServer { request in
            let arrived = inFlight.withLock { value -> Int in
                value += 1
                return value
            }
            if arrived == count {
                for _ in 0..<count { allArrived.signal() }
            }
            let together = allArrived.wait(timeout: .now() + 15) == .success
            return .text(together ? "together \(request.path)" : "timed out")
        }
        defer { server.shutdown() }

        let clients = try (0..<count).map { _ in try RawClient(port: server.port, timeout: 30) }
        for (index, client) in clients.enumerated() {
            try client.send("GET /\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        for (index, client) in clients.enumerated() {
            #expect(try client.readResponse().text == "together /\(index)")
        }
        #expect(server.statistics.connectionsAccepted == count)
    }

    @Test func manyURLSessionRequestsInParallel() async throws {
        let server = try LoopbackServer { request in .text(request.path) }
        defer { server.shutdown() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<50 {
                group.addTask {
                    let (data, _) = try await session.data(from: server.url("/\(index)"))
                    return String(decoding: data, as: UTF8.self)
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(bodies == Set((0..<50).map { "/\($0)" }))
    }
}
