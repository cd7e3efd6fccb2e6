import Dispatch
import Foundation
@_spi(KringleInternals) import KringlePromise
import Synchronization

/// A server's counters: atomics, so that counting a request never waits for the server's
/// lock (connections come and go under it), with a version that tells waiters something
/// changed.
final class ServerStatistics: Sendable {
    /// Which counter an event bumps.
    enum Counter: Sendable {
        case connectionsAccepted, requestsReceived, responsesCompleted, connectionsClosedByPeer, requestsRejected
        case connectionsRefused
    }

    private let connectionsAccepted = Atomic<Int>(0)
    private let requestsReceived = Atomic<Int>(0)
    private let responsesCompleted = Atomic<Int>(0)
    private let connectionsClosedByPeer = Atomic<Int>(0)
    private let requestsRejected = Atomic<Int>(0)
    private let connectionsRefused = Atomic<Int>(0)
    /// Bumped after every count, sequentially consistent with the waiters' reads of it, so
    /// that a waiter either sees a change or is registered before it (see `wait`).
    private let version = Atomic<Int>(0)
    /// Who waits for the next change; only taken by waiters and by a change that has some.
    private let waiters = Locked<[DispatchSemaphore]>([])

    /// The counters now (each read atomically; a snapshot taken while events happen may mix
    /// before and after, as a reader of live counters expects).
    var snapshot: LoopbackServer.Statistics {
        LoopbackServer.Statistics(
            connectionsAccepted: connectionsAccepted.load(ordering: .relaxed),
            requestsReceived: requestsReceived.load(ordering: .relaxed),
            responsesCompleted: responsesCompleted.load(ordering: .relaxed),
            connectionsClosedByPeer: connectionsClosedByPeer.load(ordering: .relaxed),
            requestsRejected: requestsRejected.load(ordering: .relaxed),
            connectionsRefused: connectionsRefused.load(ordering: .relaxed)
        )
    }

    /// Counts one event and wakes anyone waiting for the counters to change.
    func record(_ counter: Counter) {
        switch counter {
        case .connectionsAccepted: connectionsAccepted.add(1, ordering: .relaxed)
        case .requestsReceived: requestsReceived.add(1, ordering: .relaxed)
        case .responsesCompleted: responsesCompleted.add(1, ordering: .relaxed)
        case .connectionsClosedByPeer: connectionsClosedByPeer.add(1, ordering: .relaxed)
        case .requestsRejected: requestsRejected.add(1, ordering: .relaxed)
        case .connectionsRefused: connectionsRefused.add(1, ordering: .relaxed)
        }
        version.add(1, ordering: .sequentiallyConsistent)
        let woken = waiters.withLock { waiters in
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in woken { waiter.signal() }
    }

    /// Blocks until `condition` holds for the counters or `timeout` seconds pass.
    ///
    /// `condition` runs outside any lock, so it may read the server freely.
    func wait(timeout: TimeInterval, until condition: (LoopbackServer.Statistics) -> Bool) -> Bool {
        let seconds = timeout.isNaN ? 0 : min(max(timeout, 0), 1_000_000)
        let deadline = DispatchTime.now() + seconds
        while true {
            let seen = version.load(ordering: .sequentiallyConsistent)
            if condition(snapshot) { return true }
            let wakeUp = DispatchSemaphore(value: 0)
            waiters.withLock { $0.append(wakeUp) }
            // A change between the look above and registering would have found no waiter.
            guard version.load(ordering: .sequentiallyConsistent) == seen else { continue }
            if wakeUp.wait(timeout: deadline) == .timedOut {
                return condition(snapshot)
            }
        }
    }
}
