import KringleTestSupport
import Testing

@testable import KringlePromise

/// `Trampoline`: nested library work runs after the current piece, on the same thread, in
/// order, so that a long chain of synchronous settlements or releases is a loop, not a
/// recursion.
@Suite("Trampoline: recursion flattening", .generousTimeLimit)
struct TrampolineTests {
    @Test("work scheduled from inside a job runs after that job returns, in order")
    func nestedWorkRunsAfterTheCurrentPiece() {
        let log = Box<[String]>([])
        Trampoline.schedule {
            log.withLock { $0.append("outer begins") }
            Trampoline.schedule { log.withLock { $0.append("first nested") } }
            Trampoline.schedule { log.withLock { $0.append("second nested") } }
            log.withLock { $0.append("outer ends") }
        }
        #expect(log.value == ["outer begins", "outer ends", "first nested", "second nested"])
    }

    @Test("runIfIdle runs at once when idle, and refuses while a drain is under way")
    func runIfIdle() {
        let ran = Box(0)
        #expect(Trampoline.runIfIdle { ran.withLock { $0 += 1 } })
        #expect(ran.value == 1)
        let refused = Box(false)
        Trampoline.schedule {
            refused.withLock { $0 = !Trampoline.runIfIdle { ran.withLock { $0 += 1 } } }
        }
        #expect(refused.value)
        #expect(ran.value == 1, "a refused job is not run")
    }

    @Test("a million nested steps run as a loop, without overflowing the stack")
    func deepNestingIsALoop() {
        let remaining = Box(1_000_000)
        @Sendable func step() {
            let more = remaining.withLock { count -> Bool in
                count -= 1
                return count > 0
            }
            if more { Trampoline.schedule(step) }
        }
        Trampoline.schedule(step)
        #expect(remaining.value == 0)
    }

    @Test("releasing the head of a million-link list frees the links one after another")
    func releaseIsALoop() {
        let freed = Box(0)
        var head: Link? = nil
        for _ in 0..<1_000_000 { head = Link(next: head, freed: freed) }
        Trampoline.release(head.take())
        #expect(freed.value == 1_000_000)
    }
}

/// A list link whose `deinit` hands the next link to the trampoline, as a promise's does
/// with what a dropped pending chain holds.
private final class Link {
    var next: Link?
    let freed: Box<Int>

    init(next: Link?, freed: Box<Int>) {
        self.next = next
        self.freed = freed
    }

    deinit {
        freed.withLock { $0 += 1 }
        Trampoline.release(next.take())
    }
}
