import Foundation
import KringlePromise
import KringleTestSupport
import Testing

@Suite("then, map, tap, done, catch, recover, recoverWith, always, validate", .generousTimeLimit)
struct OperatorTests {
    @Test func thenChainsThePromiseItsClosureReturns() async throws {
        let later = Promise<String>.pending()
        let chained = Promise(2).then { _ in later }
        later.fulfill("two")
        #expect(try await chained.valueWithin() == "two")
    }

    @Test func mapTransformsTheValue() async throws {
        #expect(try await Promise(2).map { $0 * 21 }.valueWithin() == 42)
        // A closure that returns a promise is a value to `map`: nothing is chained.
        let nested = try await Promise(2).map { value in Promise(value) }.valueWithin()
        #expect(nested.result.map { try? $0.get() } == 2)
    }

    @Test func tapPassesTheValueOnAfterTheSideEffect() async throws {
        let seen = Recorder<Int>()
        let passed = try await Promise(3).tap { value in seen.append(value) }.valueWithin()
        #expect(passed == 3 && seen.elements == [3])
    }

    @Test func doneEndsTheChainWithVoid() async throws {
        let seen = Recorder<Int>()
        let ended: Promise<Void> = Promise(4).done { value in seen.append(value) }
        try await ended.valueWithin()
        #expect(seen.elements == [4])
    }

    @Test func throwingSideEffectsReject() async throws {
        let tapped = await Promise(1).tap { _ in throw TestError(code: 1) }.outcome()
        #expect(throws: TestError(code: 1)) { try tapped.get() }
        let finished = await Promise(1).done { _ in throw TestError(code: 2) }.outcome()
        #expect(throws: TestError(code: 2)) { try finished.get() }
    }

    @Test("On a Promise<Void>, then takes a closure returning nothing, and still chains a returned promise")
    func voidThen() async throws {
        let seen = Recorder<String>()
        try await Promise(()).then { _ in seen.append("🐱") }.valueWithin()
        #expect(seen.elements == ["🐱"])
        // A single-expression closure returning a promise must chain it, not drop it: the
        // chained rejection shows which overload ran.
        let chained = await Promise(()).then { Promise<Void>(error: TestError(code: 5)) }.outcome()
        #expect(throws: TestError(code: 5)) { try chained.get() }
    }

    @Test func handlersRunOnTheGivenQueue() async throws {
        let queue = DispatchQueue(label: "custom")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 1)
        let onQueue = try await Promise(1).map(on: queue) { _ in DispatchQueue.getSpecific(key: key) == 1 }
            .valueWithin()
        #expect(onQueue)
    }

    @Test func catchSeesTheErrorAndPassesItOn() async throws {
        let caught = Recorder<TestError?>()
        let outcome = await Promise<Int>(error: TestError(code: 8)).catch { caught.append($0 as? TestError) }.outcome()
        #expect(caught.elements == [TestError(code: 8)])
        #expect(throws: TestError(code: 8)) { try outcome.get() }
    }

    @Test func recoverReplacesErrorsOnly() async throws {
        #expect(try await Promise<Int>(error: TestError()).recover { _ in 5 }.valueWithin() == 5)
        #expect(try await Promise(1).recover { _ in 5 }.valueWithin() == 1)
    }

    @Test func recoverWithChainsThePromiseItsClosureReturns() async throws {
        let fallback = Promise<Int>.pending()
        let recovered = Promise<Int>(error: TestError()).recoverWith { _ in fallback }
        fallback.fulfill(6)
        #expect(try await recovered.valueWithin() == 6)
        #expect(try await Promise(1).recoverWith { _ in Promise(6) }.valueWithin() == 1)
    }

    @Test func alwaysRunsOnBothOutcomes() async throws {
        let runs = Counter()
        _ = await Promise(1).always { runs.increment() }.outcome()
        let failed = await Promise<Int>(error: TestError(code: 1)).always { runs.increment() }.outcome()
        #expect(runs.value == 2)
        #expect(throws: TestError(code: 1)) { try failed.get() }
    }

    @Test func validateRejectsOnFalse() async throws {
        #expect(try await Promise(4).validate { $0 > 3 }.valueWithin() == 4)
        let failed = await Promise(2).validate { $0 > 3 }.outcome()
        #expect(throws: PromiseError.validationFailure) { try failed.get() }
    }

    @Test func creatingPromises() async throws {
        #expect(try await Promise<Int> { fulfill, _ in fulfill(3) }.valueWithin() == 3)
        let thrown = await Promise<Int> { _, _ in throw TestError(code: 6) }.outcome()
        #expect(throws: TestError(code: 6)) { try thrown.get() }
        let rejected = await Promise<Int> { _, reject in reject(TestError(code: 7)) }.outcome()
        #expect(throws: TestError(code: 7)) { try rejected.get() }
        let resolved = Promise<Int>.pending()
        resolved.resolve(.success(9))
        #expect(resolved.result.flatMap { try? $0.get() } == 9)
    }

    @Test func stateQueries() {
        let pending = Promise<Int>.pending()
        #expect(pending.isPending && pending.result == nil)
        #expect(Promise(1).isFulfilled)
        #expect(Promise<Int>(error: TestError()).isRejected)
    }
}
