import Foundation
import Kringle
import Synchronization

/// The loops of a production user: `count` loops each making one `get(…, as:)` after another,
/// half with `try await …value` from tasks, half with `wait()` from threads of their own,
/// until told to stop.
final class SoakLoops: Sendable {
    private let stopping = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)
    private let count: Int

    /// Starts the loops; each records its requests in `recorder`.
    init<Value: Decodable & Sendable>(
        count: Int, client: NetworkClient, endpoint: BenchmarkEndpoint, as type: Value.Type, recorder: SoakRecorder
    ) {
        self.count = count
        for lane in 0..<count {
            if lane.isMultiple(of: 2) {
                Task.detached { [self] in
                    while !stopping.load(ordering: .relaxed) {
                        await recorder.record({ client.get(endpoint, as: type) }, call: { try await $0.value })
                    }
                    finished.signal()
                }
            } else {
                Thread { [self] in
                    while !stopping.load(ordering: .relaxed) {
                        recorder.record({ client.get(endpoint, as: type) }, call: { try $0.wait() })
                    }
                    finished.signal()
                }.start()
            }
        }
    }

    /// Tells the loops to stop after the request each has under way, and waits up to
    /// `seconds` for them; returns how many did not finish (their requests never settled).
    func stop(waitingAtMost seconds: Double) -> Int {
        stopping.store(true, ordering: .relaxed)
        let deadline = DispatchTime.now() + seconds
        var stuck = 0
        for _ in 0..<count where finished.wait(timeout: deadline) == .timedOut {
            stuck += 1
        }
        return stuck
    }
}
