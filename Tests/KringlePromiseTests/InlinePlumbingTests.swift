import Foundation
import KringlePromise
import KringleTestSupport
import Testing

/// `continueInline` and `mapSuccess(deciding:)`, the client pipeline's plumbing for a step
/// that usually has its answer at once (a hop) and sometimes starts more work (a redirect's
/// next hop), the second followed by a decode on a queue in the same step.
@Suite("Inline plumbing", .generousTimeLimit)
struct InlinePlumbingTests {
    typealias Decision = @Sendable (Result<Int, any Error>) throws -> Outcome<Int>

    static let asItIs: Decision = { .settle($0) }

    @Test func aResultAtOnceSettlesOnTheSettlingThread() throws {
        let upstream = Promise<Int>.pending()
        let next = upstream.continueInline { result in .settle(.success(try result.get() * 2)) }
        upstream.fulfill(21)
        // No queue hop: settled before `fulfill` returned.
        #expect(try next.result?.get() == 42)
    }

    @Test func anAdoptedPromiseDecides() async throws {
        let upstream = Promise<Int>.pending()
        let inner = Promise<Int>.pending()
        let next = upstream.continueInline { _ in .adopt(inner) }
        upstream.fulfill(1)
        #expect(next.isPending)
        inner.fulfill(7)
        #expect(try await next.valueWithin() == 7)
    }

    @Test func aThrowAndAnUpstreamFailureReject() {
        let thrown = Promise(1).continueInline { _ -> Outcome<Int> in throw TestError(code: 1) }
        #expect(throws: TestError(code: 1)) { try thrown.result?.get() }
        let passed = Promise<Int>(error: TestError(code: 2)).continueInline { result in .settle(result) }
        #expect(throws: TestError(code: 2)) { try passed.result?.get() }
    }

    @Test func cancellingTravelsUpstreamAndToTheAdoptedPromise() async {
        let upstream = Promise<Int>.pending()
        let inner = Promise<Int>.pending()
        let next = upstream.continueInline { _ in .adopt(inner) }
        next.cancel()
        #expect(upstream.isCancelled)

        let second = Promise<Int>.pending()
        let adopting = second.continueInline { _ in .adopt(inner) }
        second.fulfill(1)
        adopting.cancel()
        #expect(inner.isCancelled)
    }

    @Test func aDecisionAtOnceRunsTheBodyOnItsQueue() async throws {
        let upstream = Promise<Int>.pending()
        let queue = DispatchQueue(label: "decode")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let ranOnQueue = Flag()
        let addOne: Decision = { result in .settle(result.map { $0 + 1 }) }
        let next = upstream.mapSuccess(deciding: addOne, on: queue) { value in
            if DispatchQueue.getSpecific(key: key) == true { ranOnQueue.set() }
            return value * 10
        }
        upstream.fulfill(1)
        #expect(try await next.valueWithin() == 20)
        #expect(ranOnQueue.isSet)
    }

    @Test func aDecisionToFollowAPromiseRunsTheBodyOnItsValue() async throws {
        let upstream = Promise<Int>.pending()
        let inner = Promise<Int>.pending()
        let follow: Decision = { _ in .adopt(inner) }
        let next = upstream.mapSuccess(deciding: follow, on: .promises) { "\($0)" }
        upstream.fulfill(1)
        #expect(next.isPending)
        inner.fulfill(7)
        #expect(try await next.valueWithin() == "7")
    }

    @Test func aFailedDecisionRejectsAtOnceWithoutTheBody() {
        let ran = Flag()
        let fail: Decision = { _ in throw TestError(code: 3) }
        let thrown = Promise(1).mapSuccess(deciding: fail, on: .promises) { value -> Int in
            ran.set()
            return value
        }
        // On the settling thread, not after a queue hop.
        #expect(throws: TestError(code: 3)) { try thrown.result?.get() }
        let upstream = Promise<Int>.pending()
        let passed = upstream.mapSuccess(deciding: Self.asItIs, on: .promises) { value -> Int in
            ran.set()
            return value
        }
        upstream.reject(TestError(code: 4))
        #expect(throws: TestError(code: 4)) { try passed.result?.get() }
        #expect(!ran.isSet)
    }

    @Test func cancellingTheMappedPromiseReachesUpstreamAndTheFollowedPromise() {
        let upstream = Promise<Int>.pending()
        let mapped = upstream.mapSuccess(deciding: Self.asItIs, on: .promises) { $0 }
        mapped.cancel()
        #expect(upstream.isCancelled)

        let second = Promise<Int>.pending()
        let inner = Promise<Int>.pending()
        let follow: Decision = { _ in .adopt(inner) }
        let following = second.mapSuccess(deciding: follow, on: .promises) { $0 }
        second.fulfill(1)
        following.cancel()
        #expect(inner.isCancelled)
    }

    /// An inline step that settles another promise runs to its end before that promise's
    /// own inline step starts, as when every step went through the trampoline's queue:
    /// nested settlements never recurse.
    @Test func aNestedInlineStepWaitsForTheOneRunning() throws {
        let first = Promise<Int>.pending()
        let second = Promise<Int>.pending()
        let order = Recorder<String>()
        let firstStep = first.continueInline { result in
            order.append("first starts")
            second.fulfill(try result.get() + 1)
            order.append("first ends")
            return .settle(result)
        }
        let secondStep = second.continueInline { result in
            order.append("second")
            return .settle(result)
        }
        first.fulfill(1)
        #expect(order.elements == ["first starts", "first ends", "second"])
        #expect(try firstStep.result?.get() == 1)
        #expect(try secondStep.result?.get() == 2)
    }
}
