import Dispatch
import Foundation

extension DispatchQueue {
    /// The serial queue where the real clock's timers fire (`delay`, `timeout`, `retry`, the
    /// client's watchdogs). Their work only settles promises or queues jobs: what runs user
    /// code that may block (a cancellation) is sent on to ``promises``
    /// (see `Promise.cancel(fromTimerOf:)`).
    static let promiseTimers = DispatchQueue(label: "kringle.promise-timers")
}

/// All of the library's timers on one dispatch timer source, armed for the earliest
/// deadline.
///
/// Timeouts are scheduled in increasing deadline order, so a new one rarely moves the
/// earliest deadline and costs a heap insertion under a lock. A cancelled timer's work is
/// released at once; its heap entry goes when its deadline passes, or sooner when stale
/// entries outnumber live ones.
// `state` is guarded by its lock, and the source is only re-armed under that lock;
// DispatchSource itself is thread-safe, the Swift overlay just does not mark it Sendable.
final class TimerScheduler: @unchecked Sendable {
    private struct Entry {
        let deadline: UInt64
        let id: UInt64
    }

    private struct Timer: Sendable {
        let deadline: UInt64
        let work: @Sendable () -> Void
    }

    private struct State: Sendable {
        var nextID: UInt64 = 0
        var timers: [UInt64: Timer] = [:]
        var heap = DeadlineHeap()
        var armedDeadline = UInt64.max
    }

    static let shared = TimerScheduler()

    private let state = Locked(State())
    private let source: any DispatchSourceTimer

    private init() {
        source = DispatchSource.makeTimerSource(queue: .promiseTimers)
        source.schedule(deadline: .distantFuture)
        source.setEventHandler { [unowned self] in fire() }
        source.activate()
    }

    func schedule(after seconds: TimeInterval, _ work: @escaping @Sendable () -> Void) -> UInt64 {
        let delay = UInt64(max(0, min(seconds, 1e9)) * 1e9)
        let deadline = DispatchTime.now().uptimeNanoseconds + delay
        return state.withLock { state in
            state.nextID += 1
            let id = state.nextID
            state.timers[id] = Timer(deadline: deadline, work: work)
            state.heap.push(deadline: deadline, id: id)
            if state.heap.count > 1024, state.heap.count > 2 * state.timers.count {
                state.heap = DeadlineHeap(state.timers.map { ($0.value.deadline, $0.key) })
            }
            if deadline < state.armedDeadline { arm(&state, for: deadline) }
            return id
        }
    }

    func cancel(_ id: UInt64) {
        // Released outside the lock: what the work captured may do anything in its deinit.
        let cancelled = state.withLock { $0.timers.removeValue(forKey: id) }
        withExtendedLifetime(cancelled) {}
    }

    /// Runs what is due, then arms the source for the next live deadline.
    ///
    /// Here, on the timer queue: a timer's work settles a promise or queues a job, and
    /// needs no thread of ``Dispatch/DispatchQueue/promises``, which handlers blocked in
    /// `wait()` may all be holding (they may be waiting for this very timer).
    private func fire() {
        let now = DispatchTime.now().uptimeNanoseconds
        let due: [@Sendable () -> Void] = state.withLock { state in
            var due: [@Sendable () -> Void] = []
            while let top = state.heap.min, top.deadline <= now {
                state.heap.popMin()
                if let timer = state.timers.removeValue(forKey: top.id) { due.append(timer.work) }
            }
            while let top = state.heap.min, state.timers[top.id] == nil { state.heap.popMin() }
            arm(&state, for: state.heap.min?.deadline ?? .max)
            return due
        }
        for work in due { work() }
    }

    private func arm(_ state: inout State, for deadline: UInt64) {
        state.armedDeadline = deadline
        source.schedule(
            deadline: deadline == .max ? .distantFuture : DispatchTime(uptimeNanoseconds: deadline),
            leeway: .milliseconds(1)
        )
    }
}
