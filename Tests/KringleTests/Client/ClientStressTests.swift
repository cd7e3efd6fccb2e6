import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore
@testable import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Concurrency and cancellation stress", .generousTimeLimit)
struct ClientStressTests {
    @Test("200 concurrent requests all succeed with the right bodies", arguments: TransportUnderTest.allCases)
    func twoHundredConcurrent(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { request in
            let id = request.path.split(separator: "/").last.map(String.init) ?? "?"
            if request.method == "POST" { return .json(request.bodyText) }
            return .json(#"{"name": "cat \#(id)", "mood": "\#(request.method)"}"#)
        }
        defer { server.shutdown() }
        let client = transport.client()
        let promises = (0..<200).map { index in
            let endpoint = server.clientEndpoint("/cats/\(index)")
            return index.isMultiple(of: 2)
                ? client.get(endpoint, as: ClientCat.self)
                : client.post(ClientCat(name: "cat \(index)", mood: "POST"), to: endpoint, as: ClientCat.self)
        }
        let cats = try await Promise<[ClientCat]>.all(promises).valueWithin(60)
        #expect(cats == (0..<200).map { ClientCat(name: "cat \($0)", mood: $0.isMultiple(of: 2) ? "GET" : "POST") })
        #expect(server.statistics.requestsReceived == 200)
    }

    @Test(
        "URLSessionTransport survives 1,000 randomly timed cancels and 200 cancels as responses finish; every promise settles exactly once"
    )
    func cancellationStress() async throws {
        let canceller = FinishCanceller()
        let server = try LoopbackServer { request in
            let id = Int(request.path.split(separator: "/").last ?? "") ?? -1
            if request.path.hasPrefix("/finish/") {
                canceller.serverResponding(id)
                return .text("item \(id)")
            }
            // Answers take 0–4 ms, so that the 0–5 ms cancels land before, during and after.
            return LoopbackServer.Response.text("item \(id)").delayed(by: Double.random(in: 0...0.004))
        }
        defer { server.shutdown() }
        let transportLedger = SettlementLedger()
        let transport = SettlementCountingTransport(base: URLSessionTransport(), ledger: transportLedger) { request in
            // Cancel from inside a `then` on the transport's promise, i.e. as it finishes.
            let path = request.url.path
            guard path.hasPrefix("/finish/"), let id = Int(path.split(separator: "/").last ?? ""),
                FinishCanceller.mode(of: id) == .transportThen
            else { return }
            canceller.cancel(id)
        }
        let client = NetworkClient(transport: transport)
        let clientLedger = SettlementLedger()
        let clock = ContinuousClock()
        let start = clock.now

        // 1,000 requests, each cancelled 0–5 ms after it was sent, 50 at a time.
        var randomOutcomes: [Result<Data, any Error>] = []
        for wave in 0..<20 {
            let observed = (0..<50).map { offset in
                let id = wave * 50 + offset
                let promise = client.get(server.clientEndpoint("/random/\(id)"), as: Data.self)
                let delay = DispatchTimeInterval.microseconds(Int.random(in: 0...5_000))
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) { promise.cancel() }
                return clientLedger.track(id, promise)
            }
            randomOutcomes += try await Promise<[Result<Data, any Error>]>.allSettled(observed).valueWithin(30)
        }

        // 200 requests cancelled just as they finish, 20 at a time: from the server handler
        // right before it answers (at once, or within a millisecond), or from a `then` on the
        // transport's promise.
        var finishOutcomes: [Result<Data, any Error>] = []
        for wave in 0..<10 {
            let observed = (0..<20).map { offset in
                let id = 10_000 + wave * 20 + offset
                let promise = client.get(server.clientEndpoint("/finish/\(id)"), as: Data.self)
                canceller.register(id, promise)
                return clientLedger.track(id, promise)
            }
            finishOutcomes += try await Promise<[Result<Data, any Error>]>.allSettled(observed).valueWithin(30)
        }
        let elapsed = clock.now - start

        // Every client promise settled exactly once, as success with its own body or as a cancel.
        #expect(clientLedger.counts.count == 1_200)
        #expect(clientLedger.counts.values.allSatisfy { $0 == 1 }, "\(clientLedger.counts.filter { $0.value != 1 })")
        for (index, outcome) in randomOutcomes.enumerated() {
            Self.check(outcome, expected: "item \(index)")
        }
        for (index, outcome) in finishOutcomes.enumerated() {
            Self.check(outcome, expected: "item \(10_000 + index)")
        }
        // The transport settled every promise it handed out exactly once too.
        let transportCounts = await transportLedger.settledCounts(within: 30)
        #expect(
            transportCounts.allSatisfy { $0 == 1 },
            "\(transportCounts.filter { $0 != 1 }.count) unsettled or doubly settled")
        #expect(transportCounts.count >= 1, "at least one request reached the transport")

        let cancelled = (randomOutcomes + finishOutcomes).filter(\.isCancellation).count
        #expect(cancelled > 0, "some cancels must have landed")
        #expect(
            await server.awaitStatistics { $0.connectionsClosedByPeer > 0 },
            "some cancels must have stopped a transfer: \(server.statistics)")
        #expect(canceller.unfired.isEmpty, "the server saw every /finish request: \(canceller.unfired.sorted())")
        // A bound against a hang, not a measurement (ThreadSanitizer takes about 40 s).
        #expect(elapsed < .seconds(180), "\(elapsed)")

        // The client still works afterwards.
        let after = try await client.get(server.clientEndpoint("/random/7"), as: Data.self).valueWithin()
        #expect(after == Data("item 7".utf8))
    }

    private static func check(
        _ outcome: Result<Data, any Error>, expected: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch outcome {
        case .success(let body):
            #expect(String(decoding: body, as: UTF8.self) == expected, sourceLocation: sourceLocation)
        case .failure(let error):
            #expect(error.isCancellation, "\(expected): \(error)", sourceLocation: sourceLocation)
        }
    }
}

/// Counts how often each tracked promise's settlement was observed.
final class SettlementLedger: Sendable {
    private struct State {
        var counts: [Int: Int] = [:]
        var observers: [Promise<HTTPResponse>] = []
        var next = 0
    }

    private let state = Box(State())

    /// Observes `promise` under `id`; the returned promise settles like it, after counting.
    func track<Value>(_ id: Int, _ promise: Promise<Value>) -> Promise<Value> {
        state.withLock { $0.counts[id] = 0 }
        return promise.always { [self] in state.withLock { $0.counts[id, default: 0] += 1 } }
    }

    /// Observes a transport's `promise` under the next free id, keeping the observer to wait
    /// for later.
    func track(_ promise: Promise<HTTPResponse>) {
        let id = state.withLock { state -> Int in
            state.next += 1
            return state.next
        }
        let observer = track(id, promise)
        state.withLock { $0.observers.append(observer) }
    }

    var counts: [Int: Int] {
        state.withLock { $0.counts }
    }

    /// The counts, once every observer kept by ``track(_:)`` has run (or `seconds` passed).
    func settledCounts(within seconds: TimeInterval) async -> [Int] {
        let observers = state.withLock { $0.observers }
        _ = await Promise<[Result<HTTPResponse, any Error>]>.allSettled(observers).outcome(within: seconds)
        return Array(counts.values)
    }
}

/// A transport that counts the settlements of its base's promises and runs `onFulfilled`
/// from a `then` on each of them.
struct SettlementCountingTransport: Transport {
    let base: any Transport
    let ledger: SettlementLedger
    let onFulfilled: @Sendable (HTTPRequest) -> Void

    func send(_ request: ValidatedRequest) -> Promise<HTTPResponse> {
        let promise = base.send(request)
        ledger.track(promise)
        promise.done { _ in onFulfilled(request.request) }
        return promise
    }
}

/// Cancels `/finish/<id>` requests just as they finish.
final class FinishCanceller: Sendable {
    enum Mode {
        /// Cancel on the server thread, right before the handler returns the response.
        case handlerSync
        /// Cancel on another thread 0–1,000 µs after the handler returned.
        case handlerJitter
        /// Cancel from a `then` on the transport's promise.
        case transportThen
    }

    static func mode(of id: Int) -> Mode {
        switch id % 3 {
        case 0: return .handlerSync
        case 1: return .handlerJitter
        default: return .transportThen
        }
    }

    private struct State {
        var promises: [Int: Promise<Data>] = [:]
        /// Requests the server answered before their promise was registered.
        var early: Set<Int> = []
        var fired: Set<Int> = []
        var registered: Set<Int> = []
    }

    private let state = Box(State())

    func register(_ id: Int, _ promise: Promise<Data>) {
        let cancelNow = state.withLock { state -> Bool in
            state.registered.insert(id)
            if state.early.remove(id) != nil { return true }
            state.promises[id] = promise
            return false
        }
        if cancelNow, Self.mode(of: id) != .transportThen { promise.cancel() }
    }

    /// Called by the server handler just before it returns the response for `id`.
    func serverResponding(_ id: Int) {
        let mode = Self.mode(of: id)
        let promise = state.withLock { state -> Promise<Data>? in
            state.fired.insert(id)
            guard mode != .transportThen else { return nil }
            guard let promise = state.promises[id] else {
                state.early.insert(id)
                return nil
            }
            return promise
        }
        guard let promise else { return }
        if mode == .handlerSync {
            promise.cancel()
        } else {
            DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(Int.random(in: 0...1_000))) {
                promise.cancel()
            }
        }
    }

    /// Cancels the request `id` now, if it is registered.
    func cancel(_ id: Int) {
        state.withLock { $0.promises[id] }?.cancel()
    }

    /// Registered requests the server never answered.
    var unfired: Set<Int> {
        state.withLock { $0.registered.subtracting($0.fired) }
    }
}
