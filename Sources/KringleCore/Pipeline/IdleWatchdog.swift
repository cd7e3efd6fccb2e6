import Foundation
@_spi(KringleInternals) import KringlePromise
import Synchronization

/// Rejects a transfer with `KringleError.timedOut(.idle)` (and cancels it) once it has made
/// no progress for `timeout` seconds.
///
/// One timer at a time, armed for the moment the transfer would have been idle for
/// `timeout`: when it fires after progress, it is armed again for the rest of the time.
final class IdleWatchdog: Sendable {
    private struct State: Sendable {
        var timer: ClockTimer?
        var stopped = false
    }

    private let timeout: UInt64
    private let clock: any KringleClock
    /// The clock's uptime at the last progress.
    private let lastActivity: Atomic<UInt64>
    private let state = Locked(State())

    /// A watchdog for `timeout` seconds of silence; `nil` when `timeout` is zero or less,
    /// which sets no limit.
    init?(timeout: TimeInterval, clock: any KringleClock) {
        guard timeout > 0 else { return nil }
        self.timeout = UInt64(min(timeout, 1e9) * 1e9)
        self.clock = clock
        lastActivity = Atomic(clock.uptimeNanoseconds)
    }

    /// Records progress.
    func touch() {
        lastActivity.store(clock.uptimeNanoseconds, ordering: .relaxed)
    }

    /// `transfer`, rejected with `KringleError.timedOut(.idle)` after `timeout` seconds without
    /// progress; the watchdog stops when it settles. Call once.
    func guarding(_ transfer: Promise<HTTPResponse>) -> Promise<HTTPResponse> {
        let guarded = Promise<HTTPResponse>.pending()
        arm(after: timeout, guarded, transfer)
        guarded.onCancel { [self] in
            stop()
            transfer.cancel()
        }
        _ = transfer.mapResultInline { [self] result in
            stop()
            guarded.resolve(result)
        }
        return guarded
    }

    private func arm(after nanoseconds: UInt64, _ guarded: Promise<HTTPResponse>, _ transfer: Promise<HTTPResponse>) {
        state.withLock { state in
            guard !state.stopped else { return }
            state.timer = clock.schedule(after: Double(nanoseconds) / 1e9) { [self] in
                check(guarded, transfer)
            }
        }
    }

    private func check(_ guarded: Promise<HTTPResponse>, _ transfer: Promise<HTTPResponse>) {
        // `touch` may run between the two reads, so the difference can be "negative".
        let last = lastActivity.load(ordering: .relaxed)
        let now = clock.uptimeNanoseconds
        let idle = now > last ? now - last : 0
        guard idle >= timeout else {
            arm(after: timeout - idle, guarded, transfer)
            return
        }
        guard stop() else { return }
        guarded.reject(KringleError.timedOut(.idle))
        transfer.cancel(fromTimerOf: clock)
    }

    /// Stops the watchdog; returns whether it was still running.
    @discardableResult
    private func stop() -> Bool {
        let (wasRunning, timer) = state.withLock { state -> (Bool, ClockTimer?) in
            guard !state.stopped else { return (false, nil) }
            state.stopped = true
            return (true, state.timer.take())
        }
        if let timer { clock.cancel(timer) }
        return wasRunning
    }
}
