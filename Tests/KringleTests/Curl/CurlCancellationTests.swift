import Dispatch
import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// Cancelling a promise stops its transfer; every promise settles exactly once.
@Suite(.generousTimeLimit) struct CurlCancellationTests {
    @Test func cancellingStopsTheTransfer() async throws {
        let arrived = Counter()
        let server = try LoopbackServer { _ in
            arrived.increment()
            return .text("late").heldUntilHangUp()
        }
        defer { server.shutdown() }
        let promise = CurlTransport().send(makeRequest(server.url("/slow")))
        #expect(await server.awaitStatistics(within: 30) { $0.requestsReceived == 1 })

        promise.cancel()

        let result = await promise.outcome()
        guard case .failure(PromiseError.cancelled) = result else {
            Issue.record("expected PromiseError.cancelled, got \(result)")
            return
        }
        // The server sees the client hang up long before its 30 s delay is over.
        #expect(await server.awaitStatistics(within: 20) { $0.connectionsClosedByPeer == 1 })
    }

    @Test func cancellingRightAfterSendingRejectsAtOnce() async throws {
        // The first answer is held back, so only the cancel can settle that promise, however
        // far the driving thread got with it before the cancel came (not at all, usually).
        let server = try LoopbackServer { request in
            request.path == "/slow" ? .status(204).heldUntilHangUp() : .status(204)
        }
        defer { server.shutdown() }
        let transport = CurlTransport()

        let promise = transport.send(makeRequest(server.url("/slow")))
        promise.cancel()

        #expect(promise.isCancelled)
        let next = try await transport.send(makeRequest(server.url("/quick"))).valueWithin()
        #expect(next.statusCode == 204)
    }

    @Test func completedTransferWinsOverLateCancel() async throws {
        let server = try LoopbackServer { _ in .text("done") }
        defer { server.shutdown() }
        let promise = CurlTransport().send(makeRequest(server.url("/")))
        _ = try await promise.valueWithin()

        promise.cancel()

        #expect(promise.isFulfilled)
        #expect(!promise.isCancelled)
    }

    @Test(arguments: [1, 8])
    func randomCancellationsSettleEveryPromiseOnce(inFlight: Int) async throws {
        let server = try LoopbackServer { request in
            // Answer some at once and some a little later, so that cancellations land
            // before, during and after the exchange.
            let delay = request.path.hasSuffix("0") ? 0.002 : 0
            return .json(#"{"id": 1, "name": "kringle"}"#).delayed(by: delay)
        }
        defer { server.shutdown() }
        let transport = CurlTransport(configuration: .init(maximumConnectionsPerHost: 8))
        let total = 1_000
        let settlements = Counter()
        let fulfilled = Counter()
        let cancelled = Counter()
        let hangs = Counter()
        let unexpected = Recorder<String>()
        let observers = Recorder<Promise<HTTPResponse>>()

        await onThreads(inFlight) { lane in
            var generator = SystemRandomNumberGenerator()
            for index in 0..<(total / inFlight) {
                let promise = transport.send(makeRequest(server.url("/\(lane)/\(index)")))
                observers.append(promise.always { settlements.increment() })
                switch Int.random(in: 0..<5, using: &generator) {
                case 0:
                    promise.cancel()
                case 1:
                    DispatchQueue.global().async { promise.cancel() }
                case 2:
                    let microseconds = Int.random(in: 0...3_000, using: &generator)
                    DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(microseconds)) {
                        promise.cancel()
                    }
                default:
                    break  // let it complete
                }
                do {
                    let response = try promise.wait(timeout: 30)
                    fulfilled.increment()
                    if response.statusCode != 200 { unexpected.append("status \(response.statusCode)") }
                } catch PromiseError.cancelled {
                    cancelled.increment()
                } catch PromiseError.timedOut {
                    hangs.increment()
                } catch {
                    unexpected.append("\(error)")
                }
            }
        }
        for observer in observers.elements {
            _ = await observer.outcome()
        }

        #expect(hangs.value == 0)
        #expect(unexpected.elements.isEmpty, "\(unexpected.elements.prefix(5))")
        #expect(settlements.value == total)
        #expect(fulfilled.value + cancelled.value == total)
        // Every fifth request is cancelled at once and two in five are left alone, so both
        // outcomes occur.
        #expect(fulfilled.value > 0)
        #expect(cancelled.value > 0)
        // The engine is still healthy afterwards.
        let after = try await transport.send(makeRequest(server.url("/after"))).valueWithin()
        #expect(after.statusCode == 200)
    }
}
