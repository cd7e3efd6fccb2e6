import Foundation
import KringleTestSupport
import Testing

@testable import KringlePromise

/// Adoption (Promises/A+ 2.3.2) by stepping aside: a promise returned by `then`'s closure while
/// still pending is adopted by `then`'s promise; when nothing else holds that promise, it hands
/// its observers to the adopted one and is freed at once (`Promise.stepAside(for:)`), so that
/// a chain built by recursion holds one promise per link, not two.
@Suite("Adoption: a promise nobody holds steps aside", .generousTimeLimit)
struct AdoptionTests {
    /// Builds `source.then { _ in inner }` and what `follow` makes of it, holding the
    /// then-promise no longer than that; fulfils `source`, and returns what `follow` made and
    /// whether the then-promise was freed (stepped aside) within the wait.
    private static func stepAside<Followed>(
        adopting inner: Promise<Int>, _ follow: (Promise<Int>) -> Followed
    ) async -> (followed: Followed, freed: Bool) {
        let source = Promise<Int>.pending()
        weak var adopter: Promise<Int>?
        let followed: Followed
        do {
            let then = source.then { _ in inner }
            adopter = then
            followed = follow(then)
        }
        source.fulfill(1)
        return (followed, await eventually { adopter == nil })
    }
    @Test("a then-promise that only its handler holds is freed before the adopted promise settles")
    func unheldAdopterIsFreed() async throws {
        let inner = Promise<Int>.pending()
        let (end, freed) = await Self.stepAside(adopting: inner) { $0.map { $0 + 1 } }
        #expect(freed, "the then-promise stepped aside once its handler ran")
        #expect(inner.isPending)
        inner.fulfill(41)
        #expect(try await end.valueWithin() == 42, "its observers moved to the adopted promise")
    }

    @Test("cancelling the end of the chain still reaches the adopted promise, through the moved dependency")
    func cancellationStillTravelsUpstream() async throws {
        let inner = Promise<Int>.pending()
        let stopped = Flag()
        inner.onCancel { stopped.set() }
        let (end, freed) = await Self.stepAside(adopting: inner) { $0.map { $0 + 1 } }
        #expect(freed)
        end.cancel()
        #expect(stopped.isSet)
        #expect(inner.isCancelled)
        #expect(throws: PromiseError.cancelled) { try end.result?.get() }
    }

    @Test("a then-promise someone holds waits for the adopted promise and settles as it does")
    func heldAdopterSettles() async throws {
        let inner = Promise<Int>.pending()
        let then = Promise(1).then { _ in inner }
        let end = then.map { $0 + 1 }
        inner.fulfill(41)
        #expect(try await end.valueWithin() == 42)
        #expect(try then.result?.get() == 41)
    }

    @Test("a timeout on a promise that steps aside still cancels the adopted promise when it fires")
    func timeoutReachesTheAdoptedPromise() async throws {
        let inner = Promise<Int>.pending()
        let (limited, freed) = await Self.stepAside(adopting: inner) { $0.timeout(0.5) }
        #expect(freed)
        let outcome = await limited.outcome(within: 30)
        #expect(throws: PromiseError.timedOut) { try outcome.get() }
        #expect(await eventually { inner.isCancelled })
    }

    @Test("observers that moved run in the order they were registered, on their queues")
    func movedObserversKeepTheirOrder() async throws {
        let inner = Promise<Int>.pending()
        let order = Recorder<Int>()
        let queue = DispatchQueue(label: "adoption.order")
        let (ends, freed) = await Self.stepAside(adopting: inner) { then in
            (0..<5).map { index in
                then.done(on: index.isMultiple(of: 2) ? queue : .promises) { _ in order.append(index) }
            }
        }
        #expect(freed)
        inner.fulfill(1)
        for end in ends { try await end.valueWithin() }
        let onQueue = order.elements.filter { $0.isMultiple(of: 2) }
        #expect(onQueue == [0, 2, 4])
    }
}
