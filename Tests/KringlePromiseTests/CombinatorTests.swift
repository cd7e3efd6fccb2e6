import Foundation
import KringlePromise
import KringleTestSupport
import Testing

@Suite("all, allSettled, race, any, zip", .generousTimeLimit)
struct CombinatorTests {
    @Test func allKeepsOrder() async throws {
        let promises = (0..<50).map { _ in Promise<Int>.pending() }
        let all = Promise.all(promises)
        for (index, promise) in promises.enumerated().reversed() { promise.fulfill(index) }
        #expect(try await all.valueWithin() == Array(0..<50))
    }

    @Test func allOfNothingIsEmpty() async throws {
        let empty: [Promise<Int>] = []
        #expect(try await Promise.all(empty).valueWithin() == [])
    }

    @Test func allFailsFast() async throws {
        let never = Promise<Int>.pending()
        let all = Promise.all([never, Promise(error: TestError(code: 2))])
        let outcome = await all.outcome()
        #expect(throws: TestError(code: 2)) { try outcome.get() }
        #expect(never.isPending)
    }

    @Test func allSettledReportsEveryOutcome() async throws {
        let results = try await Promise.allSettled([Promise(1), Promise(error: TestError(code: 5)), Promise(3)])
            .valueWithin()
        #expect(results.count == 3)
        #expect(try results[0].get() == 1)
        #expect(throws: TestError(code: 5)) { try results[1].get() }
        #expect(try results[2].get() == 3)
    }

    @Test func raceTakesTheFirstToSettle() async throws {
        let slow = Promise<Int>.pending()
        let fast = Promise<Int>.pending()
        let race = Promise.race([slow, fast])
        fast.reject(TestError(code: 1))
        slow.fulfill(1)
        let outcome = await race.outcome()
        #expect(throws: TestError(code: 1)) { try outcome.get() }
    }

    @Test func anyTakesTheFirstFulfilment() async throws {
        let failing = Promise<Int>(error: TestError(code: 1))
        let slow = Promise<Int>.pending()
        let any = Promise.any([failing, slow])
        slow.fulfill(7)
        #expect(try await any.valueWithin() == 7)
    }

    @Test func anyRejectsWhenAllReject() async throws {
        let any = Promise.any([Promise<Int>(error: TestError(code: 1)), Promise(error: TestError(code: 2))])
        let outcome = await any.outcome()
        #expect(throws: TestError(code: 1)) { try outcome.get() }
    }

    @Test func raceAndAnyOfNothingReject() async throws {
        let none: [Promise<Int>] = []
        #expect(throws: PromiseError.emptyInput) { try Promise.race(none).result?.get() }
        #expect(throws: PromiseError.emptyInput) { try Promise.any(none).result?.get() }
    }

    @Test func zipPairsAndTriples() async throws {
        let pair = try await Promise(1).zip(Promise("one")).valueWithin()
        #expect(pair.0 == 1 && pair.1 == "one")
        let triple = try await Promise(1).zip(Promise("two"), Promise(3.0)).valueWithin()
        #expect(triple.0 == 1 && triple.1 == "two" && triple.2 == 3.0)
        let failed = await Promise(1).zip(Promise<String>(error: TestError(code: 4))).outcome()
        #expect(throws: TestError(code: 4)) { try failed.get() }
    }

    @Test func cancellingAllCancelsItsInputs() {
        let inputs = (0..<3).map { _ in Promise<Int>.pending() }
        Promise.all(inputs).cancel()
        #expect(inputs.allSatisfy { $0.isCancelled })
    }
}
