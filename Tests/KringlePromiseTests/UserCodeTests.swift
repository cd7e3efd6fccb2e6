import Dispatch
import KringleTestSupport
import Testing

@testable import KringlePromise

/// `UserCode.run(_:)`: nothing a user's closure may block on is held back for its thread.
/// (`BlockingUserCodeTests` checks every closure the library runs goes through it.)
@Suite("UserCode: user code may block on work it started", .generousTimeLimit)
struct UserCodeTests {
    @Test("jobs kept for this thread go back to the queue, and none are kept while it runs")
    func keptJobsGoBackToTheQueue() {
        let blockedThenRan = Box(false)
        let keptAfter = Box(false)
        DeferredPromiseJobs.runAsJob(of: .promises) {
            let ran = DispatchSemaphore(value: 0)
            _ = DeferredPromiseJobs.keep { ran.signal() }
            UserCode.run {
                #expect(!DeferredPromiseJobs.keep {}, "nothing is kept for a thread running user code")
                blockedThenRan.withLock { $0 = ran.wait(timeout: .now() + 30) == .success }
            }
            keptAfter.withLock { $0 = DeferredPromiseJobs.keep {} }
        }
        #expect(blockedThenRan.value, "another thread ran the job the user's code waited for")
        #expect(keptAfter.value, "the library's follow-up is kept again once the code returns")
    }

    @Test("bookkeeping queued on this thread runs first; what the code sets off runs at once")
    func trampolineWorkIsNotHeldBack() {
        let log = Box<[String]>([])
        Trampoline.schedule {
            Trampoline.schedule { log.withLock { $0.append("queued before") } }
            UserCode.run {
                Trampoline.schedule { log.withLock { $0.append("set off inside") } }
                log.withLock { $0.append("user code ends") }
            }
            Trampoline.schedule { log.withLock { $0.append("set off after") } }
            log.withLock { $0.append("bookkeeping ends") }
        }
        #expect(
            log.value == ["queued before", "set off inside", "user code ends", "bookkeeping ends", "set off after"])
    }

    @Test("runs the user's code once, before it returns")
    func runsTheCodeOnce() {
        let runs = Box(0)
        UserCode.run { runs.withLock { $0 += 1 } }
        #expect(runs.value == 1)
    }
}
