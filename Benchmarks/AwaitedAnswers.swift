import Synchronization

/// Answers handed from the thread that runs curl to tasks that await them, one lane after
/// another (``LibcurlFloor/runAwaited(_:count:inFlight:)``): each answer resumes its lane's
/// task if it is waiting, or is counted for it to take without suspending.
final class AwaitedAnswers: Sendable {
    private struct Lane {
        /// Answers handed over before the task asked for them.
        var ready = 0
        var waiting: UnsafeContinuation<Void, Never>?
    }

    private struct State {
        var lanes: [Lane]
        /// How many answers have been handed over; the next goes to lane `handedOver % lanes`.
        var handedOver = 0
    }

    private let state: Mutex<State>

    init(lanes: Int) {
        state = Mutex(State(lanes: Array(repeating: Lane(), count: lanes)))
    }

    /// Hands answers to their lanes until `total` have been handed over, so that no task
    /// waits for a request that failed before it had an answer.
    func handOver(upTo total: Int) {
        while state.withLock({ $0.handedOver }) < total { handOver() }
    }

    /// Hands the next answer to its lane.
    func handOver() {
        let waiting = state.withLock { state -> UnsafeContinuation<Void, Never>? in
            let lane = state.handedOver % state.lanes.count
            state.handedOver += 1
            guard let waiting = state.lanes[lane].waiting else {
                state.lanes[lane].ready += 1
                return nil
            }
            state.lanes[lane].waiting = nil
            return waiting
        }
        waiting?.resume()
    }

    /// Returns once `lane` has an answer.
    func next(lane: Int) async {
        await withUnsafeContinuation { continuation in
            let isReady = state.withLock { state in
                guard state.lanes[lane].ready == 0 else {
                    state.lanes[lane].ready -= 1
                    return true
                }
                state.lanes[lane].waiting = continuation
                return false
            }
            if isReady { continuation.resume() }
        }
    }
}
