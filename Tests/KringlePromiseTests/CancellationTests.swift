import Foundation
import KringlePromise
import KringleTestSupport
import Testing

@Suite("Cancellation", .generousTimeLimit)
struct CancellationTests {
    @Test func cancelRejectsAndRunsProducerHandlers() async throws {
        let promise = Promise<Int>.pending()
        let stopped = Counter()
        promise.onCancel { stopped.increment() }
        promise.cancel()
        promise.cancel()
        #expect(stopped.value == 1)
        #expect(promise.isCancelled)
        #expect(throws: PromiseError.cancelled) { try promise.result?.get() }
    }

    @Test("several cancel handlers run once each, in the order they were added")
    func severalCancelHandlersRunInOrder() {
        let promise = Promise<Int>.pending()
        let order = Recorder<Int>()
        for index in 1...3 { promise.onCancel { order.append(index) } }
        promise.cancel()
        promise.cancel()
        #expect(order.elements == [1, 2, 3])
    }

    @Test("a promise fulfilled with cancel handlers runs none and lets go of what they hold")
    func fulfilledPromiseReleasesItsCancelHandlers() {
        final class Canary: Sendable {}
        let promise = Promise<Int>.pending()
        let ran = Counter()
        weak var first: Canary?
        weak var second: Canary?
        do {
            let one = Canary()
            let other = Canary()
            first = one
            second = other
            promise.onCancel { [one] in
                _ = one
                ran.increment()
            }
            promise.onCancel { [other] in
                _ = other
                ran.increment()
            }
        }
        promise.fulfill(1)
        promise.cancel()
        #expect(ran.value == 0)
        #expect(first == nil)
        #expect(second == nil)
    }

    @Test func cancellingTheEndOfAChainStopsItsStart() async throws {
        let request = Promise<Int>.pending()
        let stopped = Flag()
        request.onCancel { stopped.set() }
        let caught = Recorder<PromiseError?>()
        let end = request.map { $0 + 1 }.then { value in Promise(value * 2) }.validate { _ in true }
        let observed = end.catch { caught.append($0 as? PromiseError) }
        end.cancel()
        #expect(stopped.isSet)
        #expect(request.isCancelled)
        _ = await observed.outcome()
        #expect(caught.elements == [.cancelled])
    }

    @Test func cancellingReachesAnAdoptedPromise() async throws {
        let inner = Promise<Int>.pending()
        let adopted = Flag()
        let outer = Promise(1).then { _ in
            adopted.set()
            return inner
        }
        #expect(await eventually { adopted.isSet })
        // Cancelled once adopted, or while the handler is still returning `inner`: adopting
        // then passes the cancellation on.
        outer.cancel()
        #expect(await eventually { inner.isCancelled })
    }

    @Test func cancellingASettledPromiseDoesNothing() async throws {
        let promise = Promise(1)
        let ran = Flag()
        promise.onCancel { ran.set() }
        promise.cancel()
        #expect(promise.isFulfilled)
        #expect(!ran.isSet)
    }

    @Test func onCancelAfterCancellationRunsAtOnce() {
        let promise = Promise<Int>.pending()
        promise.cancel()
        let ran = Flag()
        promise.onCancel { ran.set() }
        #expect(ran.isSet)
    }

    @Test func handlersAfterCancellationAreSkipped() async throws {
        let source = Promise<Int>.pending()
        let ran = Flag()
        let derived = source.tap { _ in ran.set() }
        derived.cancel()
        source.fulfill(1)
        await allowTimeForAWrongEvent()
        #expect(!ran.isSet)
    }
}
