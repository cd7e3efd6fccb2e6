import Foundation
import Kringle
@_spi(KringleInternals) import KringlePromise
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// A thread blocked in `wait()` for the request it just sent waits for the transport's
/// sockets itself, and settles the response, instead of the driving thread
/// (CurlEngine+Assistance.swift). `wait()` offers its thread only between other promise work,
/// so the tests that need the thread waiting at a given moment call the engine's `assist`
/// as `wait()` does.
@Suite("wait() for a curl request", .generousTimeLimit)
struct CurlWaitAssistanceTests {
    struct Item: Decodable, Equatable {
        let n: Int
    }

    /// A server whose answers wait for `gate`, the body's first byte included, but at `/1`.
    private static func gatedServer(_ gate: LoopbackServer.Gate) throws -> LoopbackServer {
        try LoopbackServer { request in
            guard request.path != "/1" else { return .json(#"{"n": 1}"#) }
            return LoopbackServer.Response.json(#"{"n": 7}"#).withBehavior(
                .paced([.init(bytes: 0, then: .until(gate))], afterLast: .sendRest))
        }
    }

    /// A gated server, and a curl transport and client that have sent it one request, so
    /// that the driving thread has started and sleeps.
    private struct Gated {
        let gate = LoopbackServer.Gate()
        let server: LoopbackServer
        let transport = CurlTransport()
        let engine: CurlEngine
        let client: NetworkClient

        init() async throws {
            server = try CurlWaitAssistanceTests.gatedServer(gate)
            engine = try transport.engine.get()
            client = NetworkClient(transport: transport)
            _ = try await client.get(server.clientEndpoint("/1"), as: Item.self).valueWithin()
        }

        /// Lets the held answers out and stops the server.
        func shutdown() {
            gate.open()
            server.shutdown()
        }
    }

    /// Sends a request from a thread of its own and waits for it there the way `wait()` does
    /// when the transport offers itself: in `assist` until it settles, `deadline` passes, or
    /// `assist` declines.
    private func sendAndAssist<Value: Sendable>(
        _ engine: CurlEngine, until deadline: DispatchTime = .distantFuture,
        _ send: @escaping @Sendable () -> Promise<Value>
    ) async -> (Promise<Value>, assisted: Bool) {
        await onOwnThread {
            let promise = send()
            let wakeUp = WaitWakeUp()
            promise.always { wakeUp.signal() }
            var assisted = false
            // Stops where wait() would sleep on its semaphore instead: when assist declines.
            while promise.isPending, DispatchTime.now() < deadline, engine.assist(until: deadline, wakeUp: wakeUp) {
                assisted = true
            }
            return (promise, assisted)
        }
    }

    @Test("the waiting thread is woken by its answer, settles it and decodes it")
    func waiterSettlesItsOwnAnswer() async throws {
        let gated = try await Gated()
        defer { gated.shutdown() }
        let (server, transport, client) = (gated.server, gated.transport, gated.client)
        // The answer is let out only once the thread waits for the sockets, so it is that
        // thread, not the driving one, that curl's socket wakes.
        async let opened: Bool = {
            let waiting = await eventually { transport.waitAssistance.isAssisted }
            gated.gate.open()
            return waiting
        }()
        let (promise, assisted) = await sendAndAssist(gated.engine) {
            client.get(server.clientEndpoint("/"), as: Item.self)
        }
        #expect(await opened)
        #expect(assisted)
        #expect(try await promise.valueWithin() == Item(n: 7))
        #expect(transport.waitAssistance.transfers == 1)
        #expect(!transport.waitAssistance.isAssisted)
    }

    @Test("cancelling from another thread wakes the thread that waits for the sockets")
    func cancelWakesTheWaiter() async throws {
        let gated = try await Gated()
        defer { gated.shutdown() }
        let (server, transport, client) = (gated.server, gated.transport, gated.client)
        let sent = Box<Promise<Item>?>(nil)
        async let cancelled: Bool = {
            let waiting = await eventually { transport.waitAssistance.isAssisted }
            sent.value?.cancel()
            return waiting
        }()
        let (promise, _) = await sendAndAssist(gated.engine) {
            let promise = client.get(server.clientEndpoint("/"), as: Item.self)
            sent.withLock { $0 = promise }
            return promise
        }
        #expect(await cancelled)
        guard case .failure(PromiseError.cancelled) = await promise.outcome() else {
            Issue.record("expected the request to end cancelled")
            return
        }
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer >= 1 })
        #expect(!transport.waitAssistance.isAssisted)
    }

    @Test("waiting for the sockets ends at the wait's time limit, and the request goes on")
    func assistingEndsAtTheDeadline() async throws {
        let gated = try await Gated()
        defer { gated.shutdown() }
        let (promise, _) = await sendAndAssist(gated.engine, until: .now() + 0.2) {
            gated.client.get(gated.server.clientEndpoint("/"), as: Item.self)
        }
        #expect(promise.isPending)
        #expect(!gated.transport.waitAssistance.isAssisted)
        gated.gate.open()
        #expect(try await promise.valueWithin() == Item(n: 7))
    }

    @Test("a hundred requests in a row, each waited for, all arrive whole")
    func sequentialWaits() async throws {
        let server = try LoopbackServer { request in .json(#"{"n": \#(request.path.dropFirst())}"#) }
        defer { server.shutdown() }
        let transport = CurlTransport()
        let client = NetworkClient(transport: transport)
        let items = try await onOwnThread {
            try (0..<100).map { index in try client.get(server.clientEndpoint("/\(index)"), as: Item.self).wait() }
        }
        #expect(items == (0..<100).map(Item.init(n:)))
        #expect(!transport.waitAssistance.isAssisted)
    }

    @Test("a wait with a time limit ends at it while the answer is held")
    func waitTimesOut() async throws {
        let gated = try await Gated()
        defer { gated.shutdown() }
        let (promise, outcome) = await onOwnThread {
            let promise = gated.client.get(gated.server.clientEndpoint("/"), as: Item.self)
            return (promise, Result { try promise.wait(timeout: 0.2) })
        }
        guard case .failure(PromiseError.timedOut) = outcome else {
            Issue.record("expected timedOut, got \(outcome)")
            return
        }
        gated.gate.open()
        #expect(try await promise.valueWithin() == Item(n: 7))
    }

    @Test("eight threads waiting on one transport at once all get their answers")
    func concurrentWaiters() async throws {
        let server = try LoopbackServer { request in .json(#"{"n": \#(request.path.dropFirst())}"#) }
        defer { server.shutdown() }
        let client = NetworkClient(transport: CurlTransport())
        let wrong = Counter()
        await onThreads(8) { lane in
            for index in 0..<50 {
                let n = lane * 1_000 + index
                let item = try? client.get(server.clientEndpoint("/\(n)"), as: Item.self).wait()
                if item != Item(n: n) { wrong.increment() }
            }
        }
        #expect(wrong.value == 0)
    }

    @Test("a transport that waits with poll() leaves waiting to its driving thread")
    func pollTransportIsNotAssisted() async throws {
        let server = try LoopbackServer { _ in .json(#"{"n": 1}"#) }
        defer { server.shutdown() }
        let transport = CurlTransport(configuration: .init(), library: CurlLibrary.load(), portableWaiting: true)
        let engine = try transport.engine.get()
        let client = NetworkClient(transport: transport)
        let (promise, assisted) = await sendAndAssist(engine, until: .now() + 30) {
            client.get(server.clientEndpoint("/"), as: Item.self)
        }
        #expect(!assisted)
        #expect(try await promise.valueWithin() == Item(n: 1))
        #expect(transport.waitAssistance.transfers == 0)
    }
}
