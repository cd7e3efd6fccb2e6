import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transport's own queue: which requests libcurl is handed, in what order, and what
/// happens to the ones that wait.
@Suite(.generousTimeLimit) struct CurlAdmissionTests {
    private static func submission(_ id: UInt64, _ url: String) throws -> CurlSubmission {
        let plan = try CurlRequestPlan(makeRequest(try #require(URL(string: url))), timeLimit: .deadline(nil))
        return CurlSubmission(
            id: id, plan: plan, promise: .pending(), hostKey: CurlAdmission.hostKey(ofURL: url))
    }

    @Test func requestsBeyondTheHostLimitWaitFirstInFirstOut() throws {
        var admission = CurlAdmission(perHost: 2, total: nil)
        var started: [Bool] = []
        for id in 1...4 { started.append(try admission.arrive(Self.submission(UInt64(id), "http://a.test/\(id)"))) }
        #expect(started == [true, true, false, false])
        #expect(admission.next() == nil, "no room until a transfer ends")

        admission.end(hostKey: "http://a.test")
        #expect(admission.next()?.id == 3)
        #expect(admission.next() == nil)
        admission.end(hostKey: "http://a.test")
        #expect(admission.next()?.id == 4)
        #expect(admission.running == 2)
    }

    @Test func hostsTakeTurnsUnderTheTotalLimit() throws {
        var admission = CurlAdmission(perHost: nil, total: 1)
        #expect(try admission.arrive(Self.submission(1, "http://a.test/")))
        for (id, url) in [(2, "http://a.test/"), (3, "http://b.test/"), (4, "http://a.test/")] {
            #expect(try !admission.arrive(Self.submission(UInt64(id), url)))
        }

        var order: [UInt64] = []
        var ended: Substring = "http://a.test"
        for _ in 0..<3 {
            admission.end(hostKey: ended)
            let admitted = admission.next()
            let next = try #require(admitted)
            order.append(next.id)
            ended = next.hostKey
        }

        #expect(order == [2, 3, 4])
    }

    @Test func aRequestThatLeavesTheQueueIsNeverStarted() throws {
        var admission = CurlAdmission(perHost: 1, total: nil)
        for id in 1...3 { _ = try admission.arrive(Self.submission(UInt64(id), "http://a.test/")) }

        #expect(admission.remove(2)?.id == 2)
        #expect(admission.remove(2) == nil, "removed once")
        #expect(admission.remove(1) == nil, "a running request is not in the queue")
        #expect(admission.waitingCount == 1)
        admission.end(hostKey: "http://a.test")
        #expect(admission.next()?.id == 3)
        admission.end(hostKey: "http://a.test")
        #expect(admission.isIdle)
    }

    @Test func aNewRequestDoesNotOvertakeTheQueue() throws {
        var admission = CurlAdmission(perHost: 1, total: 1)
        #expect(try admission.arrive(Self.submission(1, "http://a.test/")))
        #expect(try !admission.arrive(Self.submission(2, "http://a.test/")))
        admission.end(hostKey: "http://a.test")
        // Room now, but request 2 came first.
        #expect(try !admission.arrive(Self.submission(3, "http://a.test/")))
        #expect(admission.next()?.id == 2)
    }

    @Test(arguments: [
        ("http://example.com/path", "http://example.com"),
        ("http://Example.COM:80/path", "http://example.com"),
        ("HTTPS://example.com:443", "https://example.com"),
        ("https://example.com:8443/x?y#z", "https://example.com:8443"),
        ("https://user:secret@example.com:80/x", "https://example.com:80"),
        ("http://example.com?q=1", "http://example.com"),
        ("http://[::1]/", "http://[::1]"),
        ("http://[::1]:8080/a", "http://[::1]:8080"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        // Lower case throughout, so only the default port or the user information differs
        // from the URL's own text.
        ("http://example.com:80", "http://example.com"),
        ("https://example.com:443/a", "https://example.com"),
        ("http://user@example.com/", "http://example.com"),
        ("https://example.com:4430/", "https://example.com:4430"),
    ])
    func hostKeys(url: String, key: String) {
        #expect(CurlAdmission.hostKey(ofURL: url) == key)
    }

    @Test func aWaitingRequestTimesOutWithoutReachingTheServer() async throws {
        let paths = Recorder<String>()
        let released = LoopbackServer.Gate()
        let server = try LoopbackServer { request in
            paths.append(request.path)
            return .text("ok").withBehavior(.paced([.init(bytes: 0, then: .until(released))], afterLast: .sendRest))
        }
        defer { server.shutdown() }
        let transport = CurlTransport(configuration: .init(maximumConnectionsPerHost: 1))
        let first = transport.send(makeRequest(server.url("/first")))
        #expect(await server.awaitStatistics { $0.requestsReceived == 1 })

        let queued = await transport.send(makeRequest(server.url("/queued"), timeout: 0.2)).outcome()
        // Timed out while the first still holds the only connection: in the queue.
        #expect(queued.kringleError?.caseName == "timedOut", "\(queued)")
        // Queued behind it on the same host: had the timed-out request been left in the
        // queue, it would be started first and reach the server before this one ends.
        let last = transport.send(makeRequest(server.url("/last")))
        released.open()
        _ = try await first.valueWithin()
        _ = try await last.valueWithin()

        #expect(paths.elements == ["/first", "/last"])
    }

    @Test func aCancelledWaitingRequestLeavesTheQueue() async throws {
        let paths = Recorder<String>()
        let released = LoopbackServer.Gate()
        let server = try LoopbackServer { request in
            paths.append(request.path)
            return .text("ok").withBehavior(.paced([.init(bytes: 0, then: .until(released))], afterLast: .sendRest))
        }
        defer { server.shutdown() }
        let transport = CurlTransport(configuration: .init(maximumConnectionsPerHost: 1))
        let first = transport.send(makeRequest(server.url("/first")))
        #expect(await server.awaitStatistics { $0.requestsReceived == 1 })
        let cancelled = transport.send(makeRequest(server.url("/cancelled")))
        let last = transport.send(makeRequest(server.url("/last")))

        cancelled.cancel()
        let outcome = await cancelled.outcome()
        released.open()
        _ = try await first.valueWithin()
        _ = try await last.valueWithin()

        #expect(outcome.isCancellation, "\(outcome)")
        #expect(paths.elements == ["/first", "/last"])
    }

    @Test func aFanOutUsesNoMoreConnectionsThanTheLimitAndKeepsItsOrder() async throws {
        let paths = Recorder<String>()
        let server = try LoopbackServer { request in
            paths.append(request.path)
            return .text("ok")
        }
        defer { server.shutdown() }
        let transport = CurlTransport(configuration: .init(maximumConnectionsPerHost: 1))
        let sent = (0..<50).map { "/\($0)" }

        let responses = try await Promise.all(sent.map { transport.send(makeRequest(server.url($0))) }).valueWithin()

        #expect(responses.allSatisfy { $0.statusCode == 200 })
        #expect(paths.elements == sent)
        #expect(server.statistics.connectionsAccepted == 1)
    }

    @Test func theTotalLimitHoldsAcrossHosts() async throws {
        let released = LoopbackServer.Gate()
        let held: @Sendable (LoopbackServer.Request) -> LoopbackServer.Response = { _ in
            .text("ok").withBehavior(.paced([.init(bytes: 0, then: .until(released))], afterLast: .sendRest))
        }
        let servers = try [LoopbackServer(handler: held), LoopbackServer(handler: held)]
        defer { for server in servers { server.shutdown() } }
        let transport = CurlTransport(configuration: .init(maximumConnections: 2, maximumConnectionsPerHost: 2))

        let calls = servers.flatMap { server in (0..<3).map { _ in transport.send(makeRequest(server.url("/"))) } }
        #expect(await eventually { servers.map(\.statistics.requestsReceived).reduce(0, +) == 2 })
        await allowTimeForAWrongEvent()
        let whileHeld = servers.map(\.statistics.requestsReceived).reduce(0, +)
        released.open()
        let responses = try await Promise.all(calls).valueWithin()

        #expect(whileHeld == 2)
        #expect(responses.count == 6)
    }
}
