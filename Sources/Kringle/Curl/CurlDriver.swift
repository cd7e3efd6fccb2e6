import CCurlShim
import Foundation

/// The loop on the driving thread: starts and cancels transfers, lets curl work, and
/// settles promises as transfers finish.
///
/// Everything here runs on that one thread, which is what makes the easy handles, the
/// transfers and the pool safe without locks.
final class CurlDriver {
    private let engine: CurlEngine
    private let multi: OpaquePointer
    private var transfers: [UInt64: CurlTransfer] = [:]
    private var idsByHandle: [OpaquePointer: UInt64] = [:]
    /// Reset easy handles kept for the next transfers (creating one costs more than a reset).
    private var idleHandles: [EasyHandle] = []
    private let idleHandleLimit = 16
    /// How long one wait may last when curl has no earlier deadline of its own; only bounds
    /// how often an idle thread wakes up, since submissions interrupt the wait.
    private let waitMilliseconds: Int32 = 10_000

    init(engine: CurlEngine) {
        self.engine = engine
        multi = engine.multi.pointer
    }

    /// Runs until the engine is shut down and every transfer has finished.
    func run() {
        while true {
            let (commands, isShuttingDown) = engine.takeCommands()
            for command in commands {
                switch command {
                case .start(let submission): start(submission)
                case .cancel(let id): cancel(id)
                case .resume(let id): resume(id)
                }
            }
            if isShuttingDown, transfers.isEmpty {
                if engine.finishIfIdle() { break }
                continue
            }
            performAndCollect()
            if isShuttingDown, transfers.isEmpty { continue }
            // Announce the wait, so that commands from now on wake this thread; commands
            // that came while it was busy are picked up without any wake-up.
            guard engine.beginWait(knownShuttingDown: isShuttingDown) else { continue }
            let code = kcurl_multi_poll(multi, waitMilliseconds)
            if code != 0 {
                failAll(because: code)
            }
        }
        // The multi handle itself is freed by the engine's deinit.
        idleHandles.removeAll()
    }

    private func start(_ submission: CurlSubmission) {
        // Cancelled (or otherwise settled) while queued: nothing to send.
        guard submission.promise.isPending else { return }
        guard let easy = idleHandles.popLast() ?? EasyHandle() else {
            reject(
                submission.promise, CurlError(code: CurlError.failedInitialization, message: "curl_easy_init failed"))
            return
        }
        let transfer = CurlTransfer(submission, easy: easy)
        do {
            try transfer.configure(engine.configuration)
        } catch let error as KringleError {
            recycle(easy)
            submission.promise.reject(error)
            return
        } catch {
            recycle(easy)
            reject(submission.promise, error)
            return
        }
        let code = kcurl_multi_add(multi, easy.pointer)
        guard code == 0 else {
            recycle(easy)
            let reason = String(cString: kcurl_multi_strerror(code))
            reject(
                submission.promise,
                CurlError(code: CurlError.failedInitialization, message: "curl_multi_add_handle failed: \(reason)"))
            return
        }
        transfers[submission.id] = transfer
        idsByHandle[easy.pointer] = submission.id
    }

    /// Stops a transfer whose promise was cancelled (and so already rejected).
    private func cancel(_ id: UInt64) {
        // Not found: it finished first, or was never started; either way nothing to do.
        guard let transfer = transfers.removeValue(forKey: id) else { return }
        idsByHandle.removeValue(forKey: transfer.easy.pointer)
        kcurl_multi_remove(multi, transfer.easy.pointer)
        recycle(transfer.easy)
        // A body's reader that left before the head came: the head's promise ends too.
        transfer.submission.promise.reject(PromiseError.cancelled)
        transfer.collector.channel?.finish(throwing: PromiseError.cancelled)
    }

    /// Unpauses a transfer whose body channel has room again. curl may deliver the bytes it
    /// held back from inside this call; a transfer that finished or was cancelled meanwhile
    /// is not found.
    private func resume(_ id: UInt64) {
        guard let transfer = transfers[id] else { return }
        let code = kcurl_easy_unpause(transfer.easy.pointer)
        // curl fails the transfer without finishing it when the write callback it called
        // from inside the unpause refused the bytes (a bound crossed, the reader gone).
        guard code != 0 else { return }
        transfers.removeValue(forKey: id)
        idsByHandle.removeValue(forKey: transfer.easy.pointer)
        finish(transfer, code: code)
    }

    /// Lets curl move every transfer forward, then settles the ones that finished.
    private func performAndCollect() {
        var running: Int32 = 0
        kcurl_multi_perform(multi, &running)
        var easy: OpaquePointer?
        var code: Int32 = 0
        while kcurl_multi_next_done(multi, &easy, &code) == 1 {
            guard let easy, let id = idsByHandle.removeValue(forKey: easy),
                let transfer = transfers.removeValue(forKey: id)
            else { continue }
            finish(transfer, code: code)
        }
    }

    /// Settles a transfer that curl ended with `code` (taken out of the maps already), ends
    /// its body's channel, and gives its handle back.
    ///
    /// Settle first and tidy up after, so that whoever waits for the response (and perhaps
    /// sends the next request) runs while this thread resets the handle. A transfer cancelled
    /// a moment ago loses here: its promise has settled already.
    private func finish(_ transfer: CurlTransfer, code: Int32) {
        let outcome = transfer.outcome(code: code)
        transfer.submission.promise.resolve(outcome)
        if let channel = transfer.collector.channel {
            if case .failure(let error) = outcome { channel.finish(throwing: error) } else { channel.finish() }
        }
        kcurl_multi_remove(multi, transfer.easy.pointer)
        recycle(transfer.easy)
    }

    /// Rejects every transfer after the wait itself failed (curl found the multi handle or
    /// its sockets unusable), so that no promise is left pending.
    private func failAll(because code: Int32) {
        let reason = String(cString: kcurl_multi_strerror(code))
        let error = CurlError(code: CurlError.failedInitialization, message: "curl_multi_poll failed: \(reason)")
        for id in Array(transfers.keys) {
            guard let transfer = transfers[id] else { continue }
            cancel(id)
            reject(transfer.submission.promise, error)
        }
        // Pace a failure that repeats, instead of spinning on it.
        Thread.sleep(forTimeInterval: 0.01)
    }

    /// Resets a handle that is out of the multi handle and keeps it for later, up to a limit.
    private func recycle(_ easy: EasyHandle) {
        easy.reset()
        if idleHandles.count < idleHandleLimit {
            idleHandles.append(easy)
        }
    }

    private func reject(_ promise: Promise<HTTPResponse>, _ error: any Error) {
        promise.reject(KringleError.transport(error))
    }
}
