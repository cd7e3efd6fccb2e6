import CCurlShim
import Dispatch

/// The turns a thread other than the driving one takes with the ``DrivingLock``: a thread that
/// sends a request while the engine is idle starts it itself, and a thread blocked in `wait()`
/// for it reads the answer itself (``CurlEngine/assist(until:wakeUp:)``); the driving thread
/// sleeps on, and is woken only when curl needs it sooner.
extension CurlDriver {
    /// Starts `submission` on the calling thread, which holds the lock while the driving
    /// thread sleeps or is lent: the request goes out now, with no wake-up. Returns what the
    /// caller must settle once it has let go of the lock (transfers that finished meanwhile),
    /// and whether the driving thread must wake up (curl needs a call before its wait ends);
    /// `nil` when the driving thread has left, and the request must not start.
    func startInline(_ submission: CurlSubmission) -> (settlements: [Settlement], wakeDriver: Bool)? {
        engine.drivingLock.assertHeld()
        guard !hasExited else { return nil }
        arrive(submission)
        return (turnOffTheDrivingThread(), driverNeedsWaking())
    }

    /// What a thread other than the driving one does with the lock before it lets go: runs
    /// what is due (curl's timer, WebSockets) and starts what waited for room, until nothing
    /// more starts, and returns the finished transfers for it to settle.
    private func turnOffTheDrivingThread() -> [Settlement] {
        repeat {
            if kcurl_multi_timeout(multi) == 0 { kcurl_multi_socket_action(multi, Int32(KCURL_SOCKET_TIMEOUT), 0) }
            webSockets.serviceDue()
            collectFinished()
        } while startWaiting()
        var finished: [Settlement] = []
        swap(&finished, &settlements)
        return finished
    }

    /// Whether the driving thread, asleep, must wake up for what another thread's turn left:
    /// curl's timer now comes before its wait ends, a transfer runs while its wait is the long
    /// idle one, or a WebSocket needs a turn.
    private func driverNeedsWaking() -> Bool {
        guard let sleepsUntil else { return false }
        if webSockets.hasDue { return true }
        let timer = kcurl_multi_timeout(multi)
        let now = kcurl_now()
        return (timer >= 0 && now + Int64(timer) * 1_000_000 < sleepsUntil)
            || (!transfers.isEmpty && sleepsUntil > now + Int64(busyWaitMilliseconds) * 1_000_000)
    }

    // MARK: - A thread that waits for a response in the driving thread's place

    /// Lets an assistant (``CurlEngine/assist(until:wakeUp:)``) wait for the sockets instead
    /// of the driving thread, and returns how long it may wait; `nil` when it may not: another
    /// one does, the driving thread has left, or not exactly one transfer runs. With more,
    /// the assistant would settle other threads' responses and wake them, and give the
    /// sockets back to the driving thread with answers waiting, waking it too: the driving
    /// thread serves many transfers at once better.
    func beginAssisting(until deadline: DispatchTime) -> Int32? {
        engine.drivingLock.assertHeld()
        guard !hasExited, !isAssisted, transfers.count == 1, webSockets.isEmpty, kcurl_multi_assist_begin(multi) == 0
        else { return nil }
        isAssisted = true
        let timer = kcurl_multi_timeout(multi)
        var timeout = timer >= 0 ? min(timer, busyWaitMilliseconds) : busyWaitMilliseconds
        if deadline != .distantFuture {
            let now = DispatchTime.now()
            let left = deadline > now ? (deadline.uptimeNanoseconds - now.uptimeNanoseconds + 999_999) / 1_000_000 : 0
            timeout = Int32(min(UInt64(timeout), left))
        }
        return timeout
    }

    /// Moves the transfers on the sockets the assistant found ready (`count` of `events`, or
    /// -1 when its wait failed), gives the sockets back to the driving thread, and returns what
    /// the assistant must settle and whether the driving thread must wake up.
    func endAssisting(
        _ events: UnsafeMutableBufferPointer<kcurl_event>, count: Int32
    ) -> (settlements: [Settlement], wakeDriver: Bool) {
        engine.drivingLock.assertHeld()
        if count > 0 { handle(events[0..<Int(count)]) }
        let finished = turnOffTheDrivingThread()
        // What is ready now wakes the driving thread as the sockets go back to it.
        kcurl_multi_assist_end(multi)
        isAssisted = false
        assistedTransfers += finished.count
        // A failed wait is the driving thread's to report: its own wait fails the same way.
        return (finished, count < 0 || driverNeedsWaking())
    }
}
