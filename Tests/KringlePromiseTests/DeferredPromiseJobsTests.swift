import Dispatch
import Foundation
import KringleTestSupport
import Testing

@testable import KringlePromise

/// `DeferredPromiseJobs`: a job of the promises' queue keeps the jobs for that queue it sets
/// off, and its thread runs them once it has returned, so a long chain runs as a loop on one
/// worker, a turn at a time.
@Suite("DeferredPromiseJobs: a promise job's follow-up on the same thread", .generousTimeLimit)
struct DeferredPromiseJobsTests {
    @Test("a job kept by a promise job runs on the same thread, after that job returns")
    func keptJobRunsAfterOnTheSameThread() {
        let log = Box<[String]>([])
        let thread = pthread_self()
        let sameThread = Box(false)
        DeferredPromiseJobs.runAsJob(of: .promises) {
            let kept = DeferredPromiseJobs.keep {
                sameThread.withLock { $0 = pthread_equal(pthread_self(), thread) != 0 }
                log.withLock { $0.append("kept job") }
            }
            log.withLock { $0.append("job ends, kept: \(kept)") }
        }
        #expect(log.value == ["job ends, kept: true", "kept job"])
        #expect(sameThread.value)
    }

    @Test("nothing is kept outside a promise job, nor in a job of another queue")
    func nothingKeptElsewhere() {
        #expect(!DeferredPromiseJobs.keep {})
        let keptOnOtherQueue = Box(true)
        DeferredPromiseJobs.runAsJob(of: DispatchQueue(label: "other")) {
            keptOnOtherQueue.withLock { $0 = DeferredPromiseJobs.keep {} }
        }
        #expect(!keptOnOtherQueue.value)
    }

    @Test("a long chain runs a turn of 1,024 jobs here, then goes back to the queue")
    func longChainIsHandedBack() async {
        let links = 3_000
        let thread = pthread_self()
        let ranHere = Box(0)
        let ran = Box(0)
        let done = DispatchSemaphore(value: 0)
        @Sendable func link() {
            if pthread_equal(pthread_self(), thread) != 0 { ranHere.withLock { $0 += 1 } }
            let count = ran.withLock { count -> Int in
                count += 1
                return count
            }
            if count == links {
                done.signal()
            } else if !DeferredPromiseJobs.keep(link) {
                Issue.record("a link ran outside a promise job")
            }
        }
        DeferredPromiseJobs.runAsJob(of: .promises) { link() }
        // The first link, plus one turn of kept ones.
        #expect(ranHere.value == 1 + 1_024)
        #expect(
            await onOwnThread { done.wait(timeout: .now() + 30) } == .success, "the rest of the chain ran on the queue")
    }

    @Test("runKeptJobs, as wait() calls it, runs them before the promise job returns")
    func runKeptJobsEarly() {
        let log = Box<[String]>([])
        DeferredPromiseJobs.runAsJob(of: .promises) {
            _ = DeferredPromiseJobs.keep { log.withLock { $0.append("kept job") } }
            DeferredPromiseJobs.runKeptJobs()
            log.withLock { $0.append("job ends") }
        }
        #expect(log.value == ["kept job", "job ends"])
    }
}
