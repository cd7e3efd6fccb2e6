import Dispatch
import Foundation

/// One-shot work on the library's timer queue that can be called off.
///
/// A dispatch timer source rather than `asyncAfter`: cancelling a source frees it and its
/// handler at once, so ten thousand finished requests do not leave ten thousand 60-second
/// timeouts (and what they captured) waiting in the timer queue.
// DispatchSource is documented as thread-safe (any thread may cancel it); the Swift overlay
// just does not mark it Sendable, and this class holds nothing else.
final class PromiseTimer: @unchecked Sendable {
    private let source: any DispatchSourceTimer

    /// Runs `work` on the timer queue after `seconds`, unless cancelled first.
    init(after seconds: TimeInterval, _ work: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: .promiseTimers)
        source.schedule(deadline: .now() + max(0, seconds), leeway: .milliseconds(1))
        // The handler holds the source until it fires or is cancelled; both release it.
        source.setEventHandler { [source] in
            source.cancel()
            work()
        }
        source.activate()
    }

    func cancel() {
        source.cancel()
    }
}
