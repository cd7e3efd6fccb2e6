import Dispatch
import Foundation
import KringleTestSupport
import KringleTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Delayed responses and clients that give up", .generousTimeLimit, .onOwnThread)
struct LoopbackServerDelayTests {
    private static func slowAndFastServer() throws -> LoopbackServer {
        try LoopbackServer { request in
            request.path == "/slow" ? .text("slow").delayed(by: 60) : .text("fast")
        }
    }

    @Test func delayWaitsAtLeastThatLong() throws {
        let server = try LoopbackServer { _ in .text("late").delayed(by: 0.3) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        let start = DispatchTime.now()
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().text == "late")
        #expect(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds >= 300_000_000)
    }

    @Test func delayDoesNotBlockOtherConnections() throws {
        let server = try Self.slowAndFastServer()
        defer { server.shutdown() }
        let slow = try RawClient(port: server.port)
        try slow.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(server.waitForStatistics { $0.requestsReceived == 1 })

        let fast = try RawClient(port: server.port)
        try fast.send("GET /fast HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try fast.readResponse().text == "fast")
        #expect(!slow.hasDataAvailable(), "the 60 s response cannot have arrived yet")
    }

    @Test func clientDisconnectingDuringDelayIsCounted() throws {
        let server = try Self.slowAndFastServer()
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(server.waitForStatistics { $0.requestsReceived == 1 })
        client.close()

        #expect(server.waitForStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
        #expect(server.statistics == .init(connectionsAccepted: 1, requestsReceived: 1, connectionsClosedByPeer: 1))
    }

    @Test func clientResettingDuringDelayIsCounted() throws {
        let server = try Self.slowAndFastServer()
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(server.waitForStatistics { $0.requestsReceived == 1 })
        client.reset()
        #expect(server.waitForStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
    }

    @Test func cancelledURLSessionTaskDropsTheConnection() throws {
        let server = try Self.slowAndFastServer()
        defer { server.shutdown() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        // A data task with a completion handler: cancelling the Task awaiting the async
        // `data(from:)` can freeze FoundationNetworking (swift-corelibs-foundation #5412).
        let finished = DispatchSemaphore(value: 0)
        let errors = Recorder<String>()
        let task = session.dataTask(with: server.url("/slow")) { _, _, error in
            if let error { errors.append("\(error)") }
            finished.signal()
        }
        task.resume()
        #expect(server.waitForStatistics(timeout: 30) { $0.requestsReceived == 1 })
        task.cancel()
        #expect(finished.wait(timeout: .now() + 30) == .success)
        #expect(errors.elements.count == 1)
        #expect(server.waitForStatistics(timeout: 30) { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
        #expect(server.statistics.responsesCompleted == 0)
    }

    @Test func clientAbandoningALargeDownloadIsCounted() throws {
        let server = try LoopbackServer { _ in .data(Data(repeating: 1, count: 64 << 20)) }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readHead()
        _ = try client.read(count: 1000)
        client.reset()
        #expect(server.waitForStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
        #expect(server.statistics.responsesCompleted == 0)
    }
}
