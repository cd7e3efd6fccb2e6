import Foundation
import KringlePromise
import KringleTestSupport
import Testing

/// `continueInline`, the pipeline's plumbing for a step that usually has its answer at once
/// (a hop) and sometimes starts more work (a redirect's next hop).
@Suite("continueInline")
struct ContinueInlineTests {
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

    @Test func aThrowAndAnUpstreamFailureReject() async {
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
}
