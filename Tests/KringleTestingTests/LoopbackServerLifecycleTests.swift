import Dispatch
import Foundation
import KringleTestSupport
import Testing

@testable import KringleTesting

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

@Suite("Lifecycle: start, URLs, shutdown", .generousTimeLimit, .onOwnThread)
struct LoopbackServerLifecycleTests {
    @Test func bindsAnEphemeralLoopbackPort() throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        #expect(server.port > 0 && server.port < 65_536)
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
    }

    @Test func buildsURLsForPathsAndQueries() throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        let base = "http://127.0.0.1:\(server.port)"
        #expect(server.url("/a/b?x=1&y=2").absoluteString == base + "/a/b?x=1&y=2")
        #expect(server.url("items").absoluteString == base + "/items")
        #expect(server.url("/with%20escape").absoluteString == base + "/with%20escape")
        #expect(server.url("/two words").absoluteString == base + "/two%20words")
    }

    @Test func twoServersGetDifferentPorts() throws {
        let first = try LoopbackServer { _ in .text("1") }
        let second = try LoopbackServer { _ in .text("2") }
        defer { first.shutdown(); second.shutdown() }
        #expect(first.port != second.port)
    }

    @Test func shutdownIsIdempotentAndReleasesThePort() throws {
        let server = try LoopbackServer { _ in .text("ok") }
        let port = server.port
        let client = try RawClient(port: port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().status == 200)

        server.shutdown()
        server.shutdown()

        // The idle keep-alive connection was closed, and nobody listens any more.
        #expect(client.serverClosedConnection())
        #expect(throws: RawClient.ConnectFailure.self) { try RawClient(port: port) }
        // The port can be bound again.
        #expect(canBind(port: port))
    }

    @Test func deinitShutsDown() throws {
        var port = 0
        do {
            let server = try LoopbackServer { _ in .text("ok") }
            port = server.port
            let client = try RawClient(port: port)
            try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }
        #expect(throws: RawClient.ConnectFailure.self) { try RawClient(port: port) }
    }

    @Test func shutdownInterruptsDelayedResponsesPromptly() throws {
        let server = try LoopbackServer { _ in .text("late").delayed(by: 60) }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(server.waitForStatistics { $0.requestsReceived == 1 })

        let start = DispatchTime.now()
        server.shutdown()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        #expect(seconds < 30, "shutdown should not wait for a 60 s delay")
        #expect(client.serverClosedConnection())
        #expect(server.statistics.responsesCompleted == 0)
        #expect(server.statistics.connectionsClosedByPeer == 0, "the server, not the peer, closed it")
    }

    @Test func shutdownWaitsForARunningHandler() throws {
        let handlerStarted = DispatchSemaphore(value: 0)
        let finished = Recorder<String>()
        let server = try LoopbackServer { _ in
            handlerStarted.signal()
            // Still running when `shutdown` is called; on a slow machine it may finish first,
            // which the check below accepts too.
            usleep(200_000)
            finished.append("handler")
            return .text("done")
        }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(handlerStarted.wait(timeout: .now() + 10) == .success)
        server.shutdown()
        #expect(finished.elements == ["handler"], "shutdown returned while a handler was still running")
    }

    @Test func handlerMayShutDownItsOwnServer() throws {
        let box = Box<LoopbackServer?>(nil)
        let server = try LoopbackServer { _ in
            box.withLock { $0 }?.shutdown()
            return .text("bye")
        }
        box.withLock { $0 = server }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        // The shutdown closed this very connection before the handler's response could go out.
        #expect(client.serverClosedConnection())
        server.shutdown()
        box.withLock { $0 = nil }
    }

    /// Whether a fresh socket can bind 127.0.0.1:`port` (with SO_REUSEADDR, since the
    /// closed connections linger in TIME_WAIT).
    private func canBind(port: Int) -> Bool {
        let descriptor = makeTCPSocket()
        guard descriptor >= 0 else { return false }
        defer { _ = close(descriptor) }
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
