import Dispatch
import Foundation
import KringleTestSupport
import Testing

@_spi(KringleInternals) @testable import KringlePromise

/// `LentJobs`: on a thread lent to the promises' queue, the jobs still kept when user code
/// starts wait aside, and run on that thread once the code returns, unless the lender released
/// them to the queue first; a release is final.
@Suite("LentJobs: a lent thread's jobs set aside while user code runs", .generousTimeLimit)
struct LentJobsTests {
    /// Keeps two jobs, then runs user code: the jobs wait for it, on the lent thread.
    @Test("jobs set aside while user code runs run after it, on the lent thread")
    func asideJobsRunAfterTheUserCode() {
        let lentJobs = LentJobs()
        let log = Box<[String]>([])
        let thread = pthread_self()
        let allHere = Box(true)
        DispatchQueue.runLentToPromises(setAside: lentJobs) {
            for name in ["first", "second"] {
                _ = DeferredPromiseJobs.keep {
                    if pthread_equal(pthread_self(), thread) == 0 { allHere.withLock { $0 = false } }
                    if name == "first" {
                        UserCode.run { log.withLock { $0.append("user code") } }
                    } else {
                        log.withLock { $0.append(name) }
                    }
                }
            }
        }
        #expect(log.value == ["user code", "second"])
        #expect(allHere.value)
    }

    /// The lender's release while user code runs sends the job aside to the queue, where
    /// another thread runs it: user code that waits for it gets it.
    @Test("a release sends what is aside to the queue, and nothing more is set aside")
    func releaseIsFinal() {
        let lentJobs = LentJobs()
        let ranElsewhere = DispatchSemaphore(value: 0)
        let waited = Box(false)
        DispatchQueue.runLentToPromises(setAside: lentJobs) {
            _ = DeferredPromiseJobs.keep {
                UserCode.run {
                    lentJobs.release()
                    let success = ranElsewhere.wait(timeout: .now() + 30) == .success
                    waited.withLock { $0 = success }
                }
            }
            _ = DeferredPromiseJobs.keep { ranElsewhere.signal() }
        }
        #expect(waited.value)
        #expect(!lentJobs.put(LentJobs.Aside(jobs: [], next: 0)), "released: nothing is set aside any more")
        #expect(lentJobs.take() == nil)
    }
}
