import Dispatch
import Foundation
import Synchronization
@_spi(KringleInternals) import KringlePromise

/// Rejects a transfer with ``PromiseError/timedOut`` (and cancels it) once it has made no
/// progress for `timeout` seconds.
// The only mutable state is the atomic; DispatchSource is documented as thread-safe (any
// thread may cancel it), the Swift overlay just does not mark it Sendable.
final class IdleWatchdog: @unchecked Sendable {
    private let timeout: TimeInterval
    private let lastActivity: Atomic<UInt64>
    private let source: any DispatchSourceTimer
    /// Nanoseconds on a monotonic clock; tests pass a clock they move by hand.
    private let uptime: @Sendable () -> UInt64

    /// A serial queue of its own: its thread is never one of the few that busy or blocked
    /// work on the global queues could take, so a time-out fires on time.
    private static let queue = DispatchQueue(label: "kringle.idle-watchdog")

    init(timeout: TimeInterval, uptime: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
        self.timeout = timeout
        self.uptime = uptime
        lastActivity = Atomic(uptime())
        source = DispatchSource.makeTimerSource(queue: Self.queue)
        // Active from the start (libdispatch traps when an inactive source is freed); it
        // fires only once `guarding` schedules it.
        source.schedule(deadline: .distantFuture)
        source.activate()
    }

    /// Records progress.
    func touch() {
        lastActivity.store(uptime(), ordering: .relaxed)
    }

    /// `transfer`, rejected with ``PromiseError/timedOut`` after `timeout` seconds without
    /// progress; the watchdog stops when it settles. Call once.
    func guarding(_ transfer: Promise<HTTPResponse>) -> Promise<HTTPResponse> {
        let guarded = Promise<HTTPResponse>.pending()
        // Checked often enough to notice the silence within a tenth of the timeout.
        let check = max(0.005, min(timeout / 10, 0.25))
        source.setEventHandler { [self] in
            // `touch` may run between the two reads, so the difference can be "negative".
            let last = lastActivity.load(ordering: .relaxed)
            let now = uptime()
            let idle = now > last ? Double(now - last) / 1e9 : 0
            guard idle >= timeout else { return }
            source.cancel()
            guarded.reject(PromiseError.timedOut)
            transfer.cancel()
        }
        source.schedule(deadline: .now() + check, repeating: check)
        guarded.onCancel { [self] in
            source.cancel()
            transfer.cancel()
        }
        _ = transfer.mapResultInline { [self] result in
            source.cancel()
            guarded.resolve(result)
        }
        return guarded
    }
}
