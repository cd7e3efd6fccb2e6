import Foundation

/// Threads of their own, each making its share of a run's requests one after another and
/// blocked while each is under way: the pattern of a program that calls `wait()` from
/// several threads. Kept for a whole measurement, because starting threads for every run
/// would count their start-up against the styles that use them.
final class BlockedLanes: Sendable {
    /// One run: `count` requests in all, each made by `request`, which returns whether it
    /// succeeded.
    private struct Job: Sendable {
        let count: Int
        /// Makes one request from the lane given.
        let request: @Sendable (Int) -> Bool
    }

    /// The run under way; `nil` tells the lanes to end.
    private let job = Locked<Job?>(nil)
    /// One per lane: signalled when there is a job (or the end) to look at.
    private let starts: [DispatchSemaphore]
    /// Signalled by each lane when it has done its share.
    private let finished = DispatchSemaphore(value: 0)
    private let failures = Locked(0)

    init(count: Int) {
        starts = (0..<count).map { _ in DispatchSemaphore(value: 0) }
        for lane in 0..<count {
            Thread { self.serve(lane) }.start()
        }
    }

    /// How many lanes (threads) there are.
    var count: Int { starts.count }

    /// Makes `count` requests with `request`, lane `i` taking the `i`-th of every
    /// `lanes` in turn; returns how many failed.
    func run(count: Int, _ request: @escaping @Sendable () -> Bool) -> Int {
        run(count: count) { _ in request() }
    }

    /// The same, `request` told which lane (0 up to ``count``) it runs on.
    func run(count: Int, _ request: @escaping @Sendable (Int) -> Bool) -> Int {
        failures.set(0)
        post(Job(count: count, request: request))
        return failures.get()
    }

    /// Ends the lanes' threads, once each has finished.
    func stop() {
        post(nil)
    }

    /// Hands every lane `job` and waits until each is done with it.
    private func post(_ job: Job?) {
        self.job.set(job)
        for start in starts { start.signal() }
        for _ in starts { finished.wait() }
    }

    private func serve(_ lane: Int) {
        while true {
            starts[lane].wait()
            guard let job = job.get() else {
                finished.signal()
                return
            }
            var failed = 0
            for _ in stride(from: lane, to: job.count, by: starts.count) {
                if !job.request(lane) { failed += 1 }
            }
            failures.update { $0 += failed }
            finished.signal()
        }
    }
}
