import Dispatch
import Foundation
@_spi(KringleInternals) import KringlePromise

/// What the server's WebSocket clients sent, in the order it arrived, shared by the
/// connection threads that record it and the test that reads it or waits for it.
final class WebSocketTranscript: Sendable {
    private struct State: Sendable {
        var entries: [LoopbackServer.WebSocketTranscriptEntry] = []
        /// Who waits for the next entry.
        var waiters: [DispatchSemaphore] = []
    }

    private let state = Locked(State())

    /// Records `event`, received on connection `connectionID`, and wakes whoever waits.
    func record(_ event: LoopbackServer.WebSocketTranscriptEntry.Event, connectionID: Int) {
        let woken = state.withLock { state in
            state.entries.append(LoopbackServer.WebSocketTranscriptEntry(connectionID: connectionID, event: event))
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in woken { waiter.signal() }
    }

    /// Everything recorded so far.
    var snapshot: [LoopbackServer.WebSocketTranscriptEntry] {
        state.withLock { $0.entries }
    }

    /// Blocks until `condition` holds for the entries or `timeout` seconds pass; `condition`
    /// runs outside the lock.
    func wait(timeout: TimeInterval, until condition: ([LoopbackServer.WebSocketTranscriptEntry]) -> Bool) -> Bool {
        let seconds = timeout.isNaN ? 0 : min(max(timeout, 0), 1_000_000)
        let deadline = DispatchTime.now() + seconds
        while true {
            let (entries, seen) = state.withLock { ($0.entries, $0.entries.count) }
            if condition(entries) { return true }
            let wakeUp = DispatchSemaphore(value: 0)
            // Registered only if nothing arrived since the look above; otherwise look again.
            let registered = state.withLock { state -> Bool in
                guard state.entries.count == seen else { return false }
                state.waiters.append(wakeUp)
                return true
            }
            guard registered else { continue }
            if wakeUp.wait(timeout: deadline) == .timedOut {
                return condition(snapshot)
            }
        }
    }
}
