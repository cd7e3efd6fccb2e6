import Foundation
import KringlePromise
import Synchronization

/// The promise benchmarks of the KringlePromise issue, each against plain closures and
/// Dispatch doing the same work in the same run:
/// (a) create and fulfil 1,000,000 promises and read their values;
/// (b) 1,000,000 promises each with one `done` handler on a serial queue;
/// (c) a chain of 100,000 `map` steps;
/// (d) `all` over 100,000 promises;
/// (e) a chain of 100,000 `map` steps on one serial queue, against the same steps as plain
///     `async` hops onto that queue.
func runPromiseBenchmarks() {
    print("## Promises (median of 5 alternating rounds)\n")
    // (b) runs first so that the process's peak RSS after it is (b)'s own.
    let handlers = handlerOnSerialQueue(count: 1_000_000)
    let peak = peakResidentMegabytes()
    let table = Table("case", "closures + Dispatch", "KringlePromise", "ratio", "target")
    table.row(
        "(b) 1M promises, one `done` each on a serial queue", milliseconds(handlers.baseline.wall),
        milliseconds(handlers.candidate.wall), ratio(handlers.candidate.wall, handlers.baseline.wall), "≤ 3x")
    let creation = createAndFulfil(count: 1_000_000)
    table.row(
        "(a) create and fulfil 1M promises, read values", milliseconds(creation.baseline.wall),
        milliseconds(creation.candidate.wall), ratio(creation.candidate.wall, creation.baseline.wall), "≤ 10x")
    let chain = chainOfMaps(length: 100_000)
    table.row(
        "(c) chain of 100,000 `map` steps", milliseconds(chain.baseline.wall),
        milliseconds(chain.candidate.wall), ratio(chain.candidate.wall, chain.baseline.wall), "≤ 3x")
    let all = allOver(count: 100_000)
    table.row(
        "(d) `all` over 100,000 promises", milliseconds(all.baseline.wall),
        milliseconds(all.candidate.wall), ratio(all.candidate.wall, all.baseline.wall), "≤ 3x")
    let serial = chainOnSerialQueue(length: 100_000)
    table.row(
        "(e) chain of 100,000 `map(on: q)` steps, q serial", milliseconds(serial.baseline.wall),
        milliseconds(serial.candidate.wall), ratio(serial.candidate.wall, serial.baseline.wall), "≤ 3x")
    print(String(format: "\nPeak RSS after (b): %.0f MB (target < 200 MB)\n", peak))
}

/// A value slot set by one closure and read by another: the closure world's "promise".
private final class Slot: @unchecked Sendable {
    // Unsynchronised on purpose: the baseline is single-threaded plain closures.
    var value: Int?
}

private func createAndFulfil(count: Int) -> (baseline: Timing, candidate: Timing) {
    var sink = 0
    let result = Timing.compare {
        for index in 0..<count {
            let slot = Slot()
            let fulfil = { (value: Int) in slot.value = value }
            fulfil(index)
            sink &+= slot.value ?? 0
            blackHole(slot)
        }
    } candidate: {
        for index in 0..<count {
            let promise = Promise<Int>.pending()
            promise.fulfill(index)
            if case .success(let value)? = promise.result { sink &+= value }
        }
    }
    blackHole(sink)
    return result
}

private func handlerOnSerialQueue(count: Int) -> (baseline: Timing, candidate: Timing) {
    let queue = DispatchQueue(label: "bench.serial")
    let sum = Mutex(0)
    return Timing.compare(rounds: 3) {
        for index in 0..<count {
            queue.async { sum.withLock { $0 &+= index } }
        }
        queue.sync {}
    } candidate: {
        for index in 0..<count {
            Promise(index).done(on: queue) { value in sum.withLock { $0 &+= value } }
        }
        queue.sync {}
    }
}

private func chainOfMaps(length: Int) -> (baseline: Timing, candidate: Timing) {
    Timing.compare {
        // The same work as the promise chain: first build `length` steps (the promise version
        // builds its `length` `then` handlers before the head is fulfilled), then run them,
        // each step handing its value plus one to the next through a Dispatch hop. (This
        // baseline used to create each step only as the previous one ran: it built no chain.)
        let done = DispatchSemaphore(value: 0)
        let chain = StepChain()
        chain.steps = (0..<length).map { index in
            StepChain.Step { value in
                DispatchQueue.global().async {
                    if index + 1 == length { done.signal() } else { chain.steps[index + 1].run(value + 1) }
                }
            }
        }
        chain.steps[0].run(0)
        done.wait()
        chain.steps = []  // The steps hold the chain: break the cycle.
    } candidate: {
        let head = Promise<Int>.pending()
        var tail = head
        for _ in 0..<length {
            tail = tail.map { $0 + 1 }
        }
        head.fulfill(0)
        _ = try? tail.wait()
    }
}

private func chainOnSerialQueue(length: Int) -> (baseline: Timing, candidate: Timing) {
    let queue = DispatchQueue(label: "bench.chain")
    return Timing.compare {
        // Each step hops onto the queue and hands its value plus one to the next: what the
        // promise chain does, less the promises.
        let done = DispatchSemaphore(value: 0)
        let chain = StepChain()
        chain.steps = (0..<length).map { index in
            StepChain.Step { value in
                queue.async {
                    if index + 1 == length { done.signal() } else { chain.steps[index + 1].run(value + 1) }
                }
            }
        }
        chain.steps[0].run(0)
        done.wait()
        chain.steps = []
    } candidate: {
        let head = Promise<Int>.pending()
        var tail = head
        for _ in 0..<length {
            tail = tail.map(on: queue) { $0 + 1 }
        }
        head.fulfill(0)
        _ = try? tail.wait()
    }
}

/// The steps of the closure chains in (c)'s and (e)'s baselines, in an array rather than each capturing
/// the next, so that freeing them is a loop rather than a 100,000-deep recursion.
private final class StepChain: @unchecked Sendable {
    // Unsynchronised on purpose: `steps` is written before the chain runs and after it has
    // finished (the semaphore orders both), and only read while it runs.
    var steps: [Step] = []

    /// A step, wrapped because an array would otherwise store the closure behind a
    /// reabstraction thunk, an extra allocation the promise version does not make.
    struct Step {
        let run: @Sendable (Int) -> Void
    }
}

private func allOver(count: Int) -> (baseline: Timing, candidate: Timing) {
    Timing.compare {
        let group = DispatchGroup()
        let values = Mutex([Int](repeating: 0, count: count))
        for index in 0..<count {
            group.enter()
            DispatchQueue.global().async {
                values.withLock { $0[index] = index }
                group.leave()
            }
        }
        group.wait()
        blackHole(values.withLock { $0.count })
    } candidate: {
        let promises = (0..<count).map { _ in Promise<Int>.pending() }
        let all = Promise.all(promises)
        DispatchQueue.global().async {
            for (index, promise) in promises.enumerated() { promise.fulfill(index) }
        }
        blackHole((try? all.wait())?.count ?? 0)
    }
}

@inline(never) @_optimize(none)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
