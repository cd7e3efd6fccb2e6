import Foundation
@_spi(KringleInternals) import KringleCore

/// The delegate queue of ``URLSessionTransport``: it makes FoundationNetworking wait while
/// the queue is behind, which is the only backpressure data tasks get on Linux.
///
/// FoundationNetworking reads a response on its own transfer queue and hands each chunk of
/// body to the delegate queue with `addOperation`, without ever waiting; `suspend()` cannot
/// pause a transfer (it removes the transfer from libcurl and starts it again on `resume()`).
/// So a network faster than the delegate let chunks pile up in memory: a 1 GiB download from
/// nginx on loopback peaked at 120–210 MB. Here `addOperation` blocks its caller, the transfer
/// queue, while ``limit`` operations are waiting; libcurl then stops reading the socket and
/// TCP slows the server down.
///
/// The transfer queue must never wait for a delegate queue that itself waits for the transfer
/// queue (URLSession's `cancel()`, `resume()` and task creation run on it synchronously). So:
/// - code that calls such URLSession API runs inside ``withoutPacing(_:)``, which lets every
///   waiting caller through;
/// - a caller on this queue itself never waits;
/// - a caller stops waiting when no operation finished for ``patience``, so an unforeseen
///   cycle costs a pause, never a deadlock.
// Guarded by `condition`: the counters, its only mutable state.
final class PacedDelegateQueue: OperationQueue, @unchecked Sendable {
    private let condition = NSCondition()
    private var waiting = 0
    private var mostWaiting = 0
    private var finished = 0
    private var unpacedCalls = 0

    /// Runs the operations. A queue of its own gets a thread even when every worker of the
    /// global pool is busy (some may be FoundationNetworking's, blocked here waiting for it);
    /// kept here because `underlyingQueue` does not retain it.
    private let executionQueue = DispatchQueue(label: "kringle.urlsession-delegate")

    /// How many operations may wait before `addOperation` blocks its caller.
    let limit: Int
    /// How long a blocked caller waits for the next operation to finish before it goes on.
    let patience: TimeInterval

    /// 64 chunks of libcurl's at most (16 KB each by default) on Linux. Apple's URLSession
    /// calls its delegate queue from its own threads, which must not be blocked, so there
    /// the queue never makes anyone wait.
    static var defaultLimit: Int {
        #if canImport(FoundationNetworking)
        64
        #else
        .max
        #endif
    }

    init(limit: Int = PacedDelegateQueue.defaultLimit, patience: TimeInterval = 0.1) {
        self.limit = limit
        self.patience = patience
        super.init()
        maxConcurrentOperationCount = 1
        underlyingQueue = executionQueue
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        waitForRoom()
        enqueue(block)
    }

    /// Adds `block` without waiting for room: for Kringle's own operations.
    func enqueue(_ block: @escaping @Sendable () -> Void) {
        condition.withLock {
            waiting += 1
            mostWaiting = max(mostWaiting, waiting)
        }
        super.addOperation { [self] in
            block()
            condition.withLock {
                waiting -= 1
                finished &+= 1
                // Waking the blocked caller at half the limit, not at every operation, lets
                // it add a batch per wake-up.
                if waiting <= limit / 2 { condition.broadcast() }
            }
        }
    }

    /// The most operations that were ever waiting at once.
    var highWaterMark: Int {
        condition.withLock { mostWaiting }
    }

    /// Runs `body`, which may wait for FoundationNetworking's transfer queue, with pacing off.
    func withoutPacing<T>(_ body: () throws -> T) rethrows -> T {
        condition.withLock {
            unpacedCalls += 1
            condition.broadcast()
        }
        defer { condition.withLock { unpacedCalls -= 1 } }
        return try body()
    }

    private func waitForRoom() {
        guard OperationQueue.current !== self else { return }
        condition.lock()
        defer { condition.unlock() }
        while waiting >= limit, unpacedCalls == 0 {
            let finishedBefore = finished
            if !condition.wait(until: Date(timeIntervalSinceNow: patience)), finished == finishedBefore {
                return
            }
        }
    }
}
