import Foundation
import KringlePromise

extension Promise {
    /// The outcome, waiting at most `seconds` (a bound for a test that has gone wrong, not a
    /// measurement): a promise still pending then counts as timed out.
    public func outcome(within seconds: TimeInterval = 30) async -> Result<Value, any Error> {
        do {
            return .success(try await timeout(seconds).value)
        } catch {
            return .failure(error)
        }
    }

    /// The value, waiting at most `seconds`.
    public func valueWithin(_ seconds: TimeInterval = 30) async throws -> Value {
        try await outcome(within: seconds).get()
    }
}

/// Waits until `condition` holds, looking every few milliseconds, for at most `seconds`;
/// returns whether it held.
public func eventually(within seconds: TimeInterval = 15, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while true {
        if condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        // Polling: real time between looks; the deadline only bounds a wait that has failed.
        try? await Task.sleep(for: .milliseconds(2))
    }
}

/// Waits a moment of real time: a window for an event that must not happen (a second
/// completion, a handler that should be skipped, a request sent too early) to show up
/// before the check that follows. A slow machine can only make that check miss a bug, never
/// fail correct code.
public func allowTimeForAWrongEvent(_ seconds: TimeInterval = 0.1) async {
    try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
}
