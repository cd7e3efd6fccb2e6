import Foundation
import KringlePromise
import Testing

@Suite("then, catch, recover, always, validate")
struct OperatorTests {
    @Test func thenOverloads() async throws {
        let mapped = try await Promise(2).then { $0 * 21 }.valueWithin()
        #expect(mapped == 42)
        let chained = try await Promise(2).then { value in Promise("\(value)") }.valueWithin()
        #expect(chained == "2")
        let seen = Recorder<Int>()
        let passed = try await Promise(3).then { value in seen.append(value) }.valueWithin()
        #expect(passed == 3 && seen.elements == [3])
    }

    @Test func handlersRunOnTheGivenQueue() async throws {
        let queue = DispatchQueue(label: "custom")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 1)
        let onQueue = try await Promise(1).then(on: queue) { _ in DispatchQueue.getSpecific(key: key) == 1 }
            .valueWithin()
        #expect(onQueue)
    }

    @Test func catchSeesTheErrorAndPassesItOn() async throws {
        let caught = Recorder<TestError?>()
        let outcome = await Promise<Int>(error: TestError(code: 8)).catch { caught.append($0 as? TestError) }.settled()
        #expect(caught.elements == [TestError(code: 8)])
        #expect(throws: TestError(code: 8)) { try outcome.get() }
    }

    @Test func recoverReplacesErrorsOnly() async throws {
        #expect(try await Promise<Int>(error: TestError()).recover { _ in 5 }.valueWithin() == 5)
        #expect(try await Promise(1).recover { _ in 5 }.valueWithin() == 1)
    }

    @Test func alwaysRunsOnBothOutcomes() async throws {
        let runs = Counter()
        _ = await Promise(1).always { runs.increment() }.settled()
        let failed = await Promise<Int>(error: TestError(code: 1)).always { runs.increment() }.settled()
        #expect(runs.value == 2)
        #expect(throws: TestError(code: 1)) { try failed.get() }
    }

    @Test func validateRejectsOnFalse() async throws {
        #expect(try await Promise(4).validate { $0 > 3 }.valueWithin() == 4)
        let failed = await Promise(2).validate { $0 > 3 }.settled()
        #expect(throws: PromiseError.validationFailure) { try failed.get() }
    }

    @Test func creatingPromises() async throws {
        #expect(try await Promise<Int> { fulfill, _ in fulfill(3) }.valueWithin() == 3)
        let thrown = await Promise<Int> { _, _ in throw TestError(code: 6) }.settled()
        #expect(throws: TestError(code: 6)) { try thrown.get() }
        let rejected = await Promise<Int> { _, reject in reject(TestError(code: 7)) }.settled()
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
