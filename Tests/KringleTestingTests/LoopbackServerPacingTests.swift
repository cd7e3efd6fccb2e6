import Foundation
import KringleTestSupport
import KringleTesting
import Testing

@Suite("Paced responses: bodies in steps, released by gates, or stalled", .generousTimeLimit, .onOwnThread)
struct LoopbackServerPacingTests {
    private static let body = Data((0..<1_000).map { UInt8($0 % 251) })

    @Test("each step is sent when the gate before it opens, and nothing of the next before")
    func stepsWaitForTheirGates() throws {
        let first = LoopbackServer.Gate()
        let second = LoopbackServer.Gate()
        let server = try LoopbackServer { _ in
            .data(Self.body).withBehavior(
                .paced(
                    [
                        .init(bytes: 100, then: .until(first)),
                        .init(bytes: 300, then: .until(second)),
                    ], afterLast: .sendRest))
        }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")

        let head = String(decoding: try client.readHead(), as: UTF8.self)
        #expect(head.contains("Content-Length: 1000"), "the head announces the whole body: \(head)")
        #expect(try client.read(count: 100) == Array(Self.body.prefix(100)))
        #expect(!client.hasDataAvailable(), "the second step waits for its gate")
        first.open()
        #expect(try client.read(count: 300) == Array(Self.body[100..<400]))
        #expect(!client.hasDataAvailable())
        second.open()
        #expect(try client.read(count: 600) == Array(Self.body[400...]))
        #expect(server.waitForStatistics { $0.responsesCompleted == 1 }, "\(server.statistics)")
    }

    @Test("a stalled body sends nothing more, and a client that hangs up is counted")
    func stallUntilHangUp() throws {
        let server = try LoopbackServer { _ in
            .data(Self.body).withBehavior(.paced([.init(bytes: 200)], afterLast: .holdUntilHangUp))
        }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readHead()
        #expect(try client.read(count: 200) == Array(Self.body.prefix(200)))
        #expect(!client.hasDataAvailable())
        client.close()
        #expect(server.waitForStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
        #expect(server.statistics.responsesCompleted == 0)
    }

    @Test("a client that hangs up while a gate is closed is noticed, and shutdown does not wait for the gate")
    func hangUpDuringAGate() throws {
        let never = LoopbackServer.Gate()
        let server = try LoopbackServer { _ in
            .data(Self.body).withBehavior(.paced([.init(bytes: 10, then: .until(never))], afterLast: .sendRest))
        }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readHead()
        _ = try client.read(count: 10)
        client.close()
        #expect(server.waitForStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
        server.shutdown()
        #expect(!never.isOpen)
    }
}
