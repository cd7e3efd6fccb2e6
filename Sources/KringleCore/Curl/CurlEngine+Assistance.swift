import CCurlShim
import Dispatch
@_spi(KringleInternals) import KringlePromise

/// A thread blocked in `wait()` for a response of this engine waits for the sockets in the
/// driving thread's place.
///
/// `client.get(…).wait()` starts its transfer on the calling thread (``CurlEngine``) and then
/// blocks. Left to the driving thread, the answer would wake that thread, which would then
/// wake the caller: two threads woken per request. Instead the caller takes the sockets from
/// the driving thread's wait, without waking it (`kcurl_multi_assist_begin`), and sleeps on
/// them itself: the answer wakes the thread that wants it, which lets curl read it, settles
/// the response, and runs the decode and what follows, as a lent driving thread does. Then it
/// gives the sockets back, which wakes the driving thread only if something is ready for it.
/// One thread assists at a time; the others sleep as usual.
extension CurlEngine: PromiseWaitAssistant {
    func assist(until deadline: DispatchTime, wakeUp: WaitWakeUp) -> Bool {
        // Only a lone transfer is waited for so (CurlDriver.beginAssisting(until:)), which the
        // count tells without the lock: threads waiting side by side do not queue for it.
        guard startsInline, transferCount.load(ordering: .relaxed) == 1, DrivingLock.mayWait else { return false }
        var holding = drivingLock.lock()
        guard let timeout = driver.driver.beginAssisting(until: deadline) else {
            drivingLock.unlock(holding)
            return false
        }
        drivingLock.unlock(holding)
        let (settlements, wakeDriver) = withUnsafeTemporaryAllocation(of: kcurl_event.self, capacity: 64) { events in
            let multi = multi
            let count =
                wakeUp.whileInterrupting(with: { kcurl_multi_wake_assistant(multi.pointer) }) {
                    kcurl_multi_assist_wait(multi.pointer, timeout, events.baseAddress, Int32(events.count))
                } ?? 0
            holding = drivingLock.lock()
            defer { drivingLock.unlock(holding) }
            return driver.driver.endAssisting(events, count: count)
        }
        if wakeDriver { kcurl_multi_wakeup(multi.pointer) }
        if !settlements.isEmpty {
            // As the driving thread does: what follows (the decode this thread waits for)
            // runs here, not on a worker woken for it.
            DispatchQueue.runLentToPromises {
                for settlement in settlements { settlement.settle() }
            }
        }
        return true
    }
}

extension CurlEngine {
    /// Whether a thread waits for the sockets in the driving thread's place now, and how many
    /// transfers such threads have seen finish (for tests).
    var assistance: (isAssisted: Bool, transfers: Int) {
        let holding = drivingLock.lock()
        defer { drivingLock.unlock(holding) }
        return (driver.driver.isAssisted, driver.driver.assistedTransfers)
    }
}
