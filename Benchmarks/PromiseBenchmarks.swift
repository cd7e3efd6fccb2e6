import ChildProcess
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
///     `async` hops onto that queue;
/// (f) a 1,000,000-step chain built by recursion (`then` and `map`, as the Promises/A+ rule 7
///     test builds it), against the same recursion with completion handlers: its peak RSS,
///     each side in a fresh process of its own.
///
/// `kringle-benchmarks promise recursive-chain-child <closures|promises> <steps>` is (f)'s
/// child: it runs one side once and prints its seconds and its peak RSS in MB.
func runPromiseBenchmarks() {
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    if arguments.first == "recursive-chain-child" { return runRecursiveChainChild(Array(arguments.dropFirst())) }
    print("## Promises (median of 5 alternating rounds)\n")
    // (b) runs first so that the process's peak RSS after it is (b)'s own.
    let handlers = handlerOnSerialQueue(count: 1_000_000)
    let peak = peakResidentMegabytes()
    let table = Table("case", "closures + Dispatch", "KringlePromise", "ratio", "target")
    table.row(
        "(b) 1M promises, one `done` each on a serial queue", milliseconds(handlers.baseline.wall),
        milliseconds(handlers.candidate.wall), ratio(handlers.candidate.wall, handlers.baseline.wall), "≤ 2x")
    let creation = createAndFulfil(count: 1_000_000)
    table.row(
        "(a) create and fulfil 1M promises, read values", milliseconds(creation.baseline.wall),
        milliseconds(creation.candidate.wall), ratio(creation.candidate.wall, creation.baseline.wall), "≤ 10x")
    let chain = chainOfMaps(length: 100_000)
    table.row(
        "(c) chain of 100,000 `map` steps", milliseconds(chain.baseline.wall),
        milliseconds(chain.candidate.wall), ratio(chain.candidate.wall, chain.baseline.wall), "≤ 2.5x")
    let all = allOver(count: 100_000)
    table.row(
        "(d) `all` over 100,000 promises", milliseconds(all.baseline.wall),
        milliseconds(all.candidate.wall), ratio(all.candidate.wall, all.baseline.wall), "≤ 3x")
    let serial = chainOnSerialQueue(length: 100_000)
    table.row(
        "(e) chain of 100,000 `map(on: q)` steps, q serial", milliseconds(serial.baseline.wall),
        milliseconds(serial.candidate.wall), ratio(serial.candidate.wall, serial.baseline.wall), "≤ 3x")
    print(String(format: "\nPeak RSS after (b): %.0f MB (target < 200 MB)\n", peak))
    recursiveChain(steps: 1_000_000)
}

// MARK: - (f) a chain built by recursion, each side in a process of its own

/// (f): each side runs in a fresh child process, three times, alternating, so that each peak
/// RSS is that side's own (the peak of a process never goes down, so a case measured after
/// others would report theirs). A child's peak includes what every process of this binary
/// holds before it starts (the Swift runtime, Foundation, Dispatch).
private func recursiveChain(steps: Int) {
    var runs: [String: [(seconds: Double, megabytes: Double)]] = [:]
    for _ in 0..<3 {
        for side in ["closures", "promises"] {
            let child = try? ChildProcess.run(
                CommandLine.arguments[0], ["promise", "recursive-chain-child", side, String(steps)], killAfter: 300)
            let fields = child?.text.split(whereSeparator: \.isWhitespace).compactMap { Double($0) } ?? []
            guard child?.status == 0, fields.count == 2 else {
                print("(f) the \(side) child failed: status \(child?.status ?? -1), \(child?.text ?? "not started")")
                return
            }
            runs[side, default: []].append((fields[0], fields[1]))
        }
    }
    func median(_ side: String, _ value: ((seconds: Double, megabytes: Double)) -> Double) -> Double {
        let values = runs[side, default: []].map(value).sorted()
        return values[values.count / 2]
    }
    let table = Table(
        "case (median of 3 fresh processes each)", "closures + Dispatch", "KringlePromise", "ratio", "target")
    let closurePeak = median("closures", \.megabytes)
    let promisePeak = median("promises", \.megabytes)
    table.row(
        "(f) 1,000,000-step recursive chain (`then` + `map`), peak RSS", String(format: "%.0f MB", closurePeak),
        String(format: "%.0f MB", promisePeak), ratio(promisePeak, closurePeak), "< 200 MB")
    let closureTime = median("closures", \.seconds)
    let promiseTime = median("promises", \.seconds)
    table.row(
        "(f) the same, wall time", milliseconds(closureTime), milliseconds(promiseTime),
        ratio(promiseTime, closureTime), "")
    print("")
}

/// One side of (f), in the child process: runs the recursion once and prints its seconds and
/// the process's peak RSS in MB.
private func runRecursiveChainChild(_ arguments: [String]) {
    guard arguments.count == 2, let steps = Int(arguments[1]), ["closures", "promises"].contains(arguments[0]) else {
        print("usage: kringle-benchmarks promise recursive-chain-child <closures|promises> <steps>")
        exit(2)
    }
    var counted = 0
    let timing = Timing.of {
        if arguments[0] == "promises" {
            counted = (try? countDown(steps).wait()) ?? -1
        } else {
            let done = DispatchSemaphore(value: 0)
            let result = Mutex(0)
            countDown(steps) { value in
                result.withLock { $0 = value }
                done.signal()
            }
            done.wait()
            counted = result.withLock { $0 }
        }
    }
    guard counted == steps else {
        print("counted \(counted), expected \(steps)")
        exit(1)
    }
    print(timing.wall, peakResidentMegabytes())
}

/// The recursion of the Promises/A+ rule 7 test (`millionStepRecursiveChain`): `then` starts
/// the next level, `map` adds one on the way back.
@Sendable private func countDown(_ remaining: Int) -> Promise<Int> {
    remaining == 0 ? Promise(0) : Promise(remaining).then { value in countDown(value - 1).map { $0 + 1 } }
}

/// The same recursion with completion handlers: a hop onto a global queue starts the next
/// level (as `then`'s handler runs on its queue), and another adds one on the way back (as
/// `map`'s does). Each level's completion holds the one above it until the bottom is reached,
/// as each level's promise is held until then.
private func countDown(_ remaining: Int, _ completion: @escaping @Sendable (Int) -> Void) {
    guard remaining > 0 else { return completion(0) }
    DispatchQueue.global().async {
        countDown(remaining - 1) { value in
            DispatchQueue.global().async { completion(value + 1) }
        }
    }
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
