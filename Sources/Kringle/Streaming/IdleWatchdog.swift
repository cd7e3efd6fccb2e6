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

    init(timeout: TimeInterval) {
        self.timeout = timeout
        lastActivity = Atomic(DispatchTime.now().uptimeNanoseconds)
        source = DispatchSource.makeTimerSource(queue: .global())
    }

    /// Records progress.
    func touch() {
        lastActivity.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
    }

    /// `transfer`, rejected with ``PromiseError/timedOut`` after `timeout` seconds without
    /// progress; the watchdog stops when it settles. Call once.
    func guarding(_ transfer: Promise<HTTPResponse>) -> Promise<HTTPResponse> {
        let guarded = Promise<HTTPResponse>.pending()
        let check = max(0.01, min(timeout / 4, 1))
        source.schedule(deadline: .now() + check, repeating: check)
        source.setEventHandler { [self] in
            let idle = Double(DispatchTime.now().uptimeNanoseconds - lastActivity.load(ordering: .relaxed)) / 1e9
            guard idle >= timeout else { return }
            source.cancel()
            guarded.reject(PromiseError.timedOut)
            transfer.cancel()
        }
        source.activate()
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
