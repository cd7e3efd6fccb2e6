import Dispatch
import Foundation
import KringleTestSupport
import Testing

@testable import KringlePromise

/// How a closure handed to the library waits, on its own thread, for promise work it started:
/// the blocking primitives that scripts and tests use, and `wait()`.
enum Blocker: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case semaphore
    case group
    case wait

    var testDescription: String { rawValue }

    /// The blockers that need a signal from a handler (all but `wait()`).
    static let signalled: [Blocker] = [.semaphore, .group]

    /// A gate that a handler opens and this blocker waits at, bounded so that a deadlock
    /// fails the test instead of hanging the suite.
    func makeGate() -> Gate {
        switch self {
        case .semaphore, .wait:
            let semaphore = DispatchSemaphore(value: 0)
            return Gate(open: { semaphore.signal() }, wait: { semaphore.wait(timeout: .now() + 30) == .success })
        case .group:
            let group = DispatchGroup()
            group.enter()
            return Gate(open: { group.leave() }, wait: { group.wait(timeout: .now() + 30) == .success })
        }
    }

    /// Starts promise work, sent through `through` (a `timeout` by default), and blocks until
    /// a handler of it has run; returns whether it ran in time.
    ///
    /// The work sets off both kinds of follow-up that the library may keep for the thread it
    /// runs on: an inline observer (`timeout`'s, say) and a drain on
    /// ``Dispatch/DispatchQueue/promises`` (`map`'s).
    func blockOnOwnWork(through: @Sendable (Promise<Int>) -> Promise<Int> = { $0.timeout(60) }) -> Bool {
        let started = Promise<Int>.pending()
        let handled = through(started).map { $0 + 1 }
        switch self {
        case .semaphore, .group:
            let gate = makeGate()
            handled.done { _ in gate.open() }
            started.fulfill(1)
            return gate.wait()
        case .wait:
            started.fulfill(1)
            return (try? handled.wait(timeout: 30)) == 2
        }
    }
}

/// A one-shot gate: `open` from one thread, `wait` (bounded) on another.
struct Gate: Sendable {
    let open: @Sendable () -> Void
    let wait: @Sendable () -> Bool
}

/// Promise work that user code may start and then wait for.
enum Starter: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case all, allSettled, race, any, zip, timeout, delay

    var testDescription: String { rawValue }

    func start(_ promise: Promise<Int>) -> Promise<Int> {
        switch self {
        case .all: return Promise.all([promise, Promise(2)]).map { $0[0] }
        case .allSettled: return Promise.allSettled([promise]).map { try $0[0].get() }
        case .race: return Promise.race([promise, .pending()])
        case .any: return Promise.any([Promise(error: TestError()), promise])
        case .zip: return promise.zip(Promise(2)).map { $0.0 }
        case .timeout: return promise.timeout(60)
        case .delay: return promise.delay(0)
        }
    }
}

/// Every closure handed to KringlePromise may block until promise work it started has run,
/// as it may on any concurrent queue: the library keeps none of that work back for the
/// blocked thread (issue 30, item 5). Each test blocks with a semaphore, a `DispatchGroup`
/// and `wait()`, bounded so that a deadlock fails rather than hangs.
@Suite("user code may block on promise work it started", .generousTimeLimit)
struct BlockingUserCodeTests {
    // MARK: Operators

    @Test("then", arguments: Blocker.allCases)
    func then(_ blocker: Blocker) async throws {
        #expect(try await Promise(1).then { _ in Promise(blocker.blockOnOwnWork()) }.valueWithin(60))
    }

    @Test("then on a Promise<Void>", arguments: Blocker.allCases)
    func thenVoid(_ blocker: Blocker) async throws {
        let ran = Box<Bool?>(nil)
        try await Promise(()).then { ran.withLock { $0 = blocker.blockOnOwnWork() } }.valueWithin(60)
        #expect(ran.value == true)
    }

    @Test("map", arguments: Blocker.allCases)
    func map(_ blocker: Blocker) async throws {
        #expect(try await Promise(1).map { _ in blocker.blockOnOwnWork() }.valueWithin(60))
    }

    @Test("done", arguments: Blocker.allCases)
    func done(_ blocker: Blocker) async throws {
        let ran = Box<Bool?>(nil)
        try await Promise(1).done { _ in ran.withLock { $0 = blocker.blockOnOwnWork() } }.valueWithin(60)
        #expect(ran.value == true)
    }

    @Test("tap", arguments: Blocker.allCases)
    func tap(_ blocker: Blocker) async throws {
        let ran = Box<Bool?>(nil)
        _ = try await Promise(1).tap { _ in ran.withLock { $0 = blocker.blockOnOwnWork() } }.valueWithin(60)
        #expect(ran.value == true)
    }

    @Test("validate", arguments: Blocker.allCases)
    func validate(_ blocker: Blocker) async throws {
        #expect(try await Promise(1).validate { _ in blocker.blockOnOwnWork() }.valueWithin(60) == 1)
    }

    @Test("always", arguments: Blocker.allCases)
    func always(_ blocker: Blocker) async throws {
        let ran = Box<Bool?>(nil)
        _ = try await Promise(1).always { ran.withLock { $0 = blocker.blockOnOwnWork() } }.valueWithin(60)
        #expect(ran.value == true)
    }

    @Test("catch", arguments: Blocker.allCases)
    func `catch`(_ blocker: Blocker) async throws {
        let ran = Box<Bool?>(nil)
        let outcome = await Promise<Int>(error: TestError()).catch { _ in ran.withLock { $0 = blocker.blockOnOwnWork() }
        }
        .outcome(within: 60)
        #expect(throws: TestError.self) { try outcome.get() }
        #expect(ran.value == true)
    }

    @Test("recover", arguments: Blocker.allCases)
    func recover(_ blocker: Blocker) async throws {
        let recovered = Promise<Bool>(error: TestError()).recover { _ in blocker.blockOnOwnWork() }
        #expect(try await recovered.valueWithin(60))
    }

    @Test("recoverWith", arguments: Blocker.allCases)
    func recoverWith(_ blocker: Blocker) async throws {
        let recovered = Promise<Bool>(error: TestError()).recoverWith { _ in Promise(blocker.blockOnOwnWork()) }
        #expect(try await recovered.valueWithin(60))
    }

    @Test("a handler on a concurrent queue of the user's", arguments: Blocker.allCases)
    func handlerOnUserQueue(_ blocker: Blocker) async throws {
        let queue = DispatchQueue(label: "user.concurrent", attributes: .concurrent)
        #expect(try await Promise(1).map(on: queue) { _ in blocker.blockOnOwnWork() }.valueWithin(60))
    }

    @Test("a handler on a serial queue of the user's", arguments: Blocker.allCases)
    func handlerOnUserSerialQueue(_ blocker: Blocker) async throws {
        let queue = DispatchQueue(label: "user.serial")
        #expect(try await Promise(1).map(on: queue) { _ in blocker.blockOnOwnWork() }.valueWithin(60))
    }

    @Test("a handler waiting for one that ran before it, for the same promise", arguments: Blocker.signalled)
    func handlerWaitingForAnEarlierOne(_ blocker: Blocker) async throws {
        // Both handlers run in one drain: the first one's follow-up must not be kept for the
        // thread that the second one blocks.
        let source = Promise<Int>.pending()
        let gate = blocker.makeGate()
        let first = source.map { $0 + 1 }
        first.done { _ in gate.open() }
        let second = source.map { _ in gate.wait() }
        source.fulfill(1)
        #expect(try await second.valueWithin(60))
        #expect(try await first.valueWithin() == 2)
    }

    @Test("a step of the client's pipeline (mapSuccess)", arguments: Blocker.allCases)
    func successStep(_ blocker: Blocker) async throws {
        let source = Promise<Int>.pending()
        let stepped = source.mapSuccess(on: .promises) { _ in blocker.blockOnOwnWork() }
        source.fulfill(1)
        #expect(try await stepped.valueWithin(60))
    }

    // MARK: Creation

    @Test("a Promise { } body", arguments: Blocker.allCases)
    func creationBody(_ blocker: Blocker) async throws {
        let created = Promise<Bool> { fulfill, _ in fulfill(blocker.blockOnOwnWork()) }
        #expect(try await created.valueWithin(60))
    }

    @Test("a Promise { } body on a queue of the user's", arguments: Blocker.allCases)
    func creationBodyOnUserQueue(_ blocker: Blocker) async throws {
        let queue = DispatchQueue(label: "user.serial")
        let created = Promise<Bool>(on: queue) { fulfill, _ in fulfill(blocker.blockOnOwnWork()) }
        #expect(try await created.valueWithin(60))
    }

    @Test("a Promise { } body started by a handler", arguments: Blocker.allCases)
    func creationBodyFromHandler(_ blocker: Blocker) async throws {
        let created = Promise(1).then { _ in Promise<Bool> { fulfill, _ in fulfill(blocker.blockOnOwnWork()) } }
        #expect(try await created.valueWithin(60))
    }

    @Test(
        "a Promise { } body waiting for a combinator",
        arguments: Starter.allCases, Blocker.allCases)
    func creationBodyWaitingForCombinator(_ starter: Starter, _ blocker: Blocker) async throws {
        let created = Promise<Bool> { fulfill, _ in
            fulfill(blocker.blockOnOwnWork(through: starter.start))
        }
        #expect(try await created.valueWithin(60))
    }

    // MARK: Retry

    @Test("retry's work, first attempt", arguments: Blocker.allCases)
    func retryFirstAttempt(_ blocker: Blocker) async throws {
        let retried = Promise<Bool>.retry(attempts: 1) { Promise(blocker.blockOnOwnWork()) }
        #expect(try await retried.valueWithin(60))
    }

    @Test("retry's work, a later attempt", arguments: Blocker.allCases)
    func retryLaterAttempt(_ blocker: Blocker) async throws {
        let attempts = Counter()
        let retried = Promise<Bool>.retry(attempts: 2, delay: 0) {
            attempts.increment() == 1 ? Promise(error: TestError()) : Promise(blocker.blockOnOwnWork())
        }
        #expect(try await retried.valueWithin(60))
        #expect(attempts.value == 2)
    }

    @Test("retry's condition", arguments: Blocker.allCases)
    func retryCondition(_ blocker: Blocker) async throws {
        let ran = Box<Bool?>(nil)
        let retried = Promise<Int>.retry(attempts: 2, delay: 0) { _, _ in
            ran.withLock { $0 = blocker.blockOnOwnWork() }
            return false
        } _: {
            Promise(error: TestError())
        }
        let outcome = await retried.outcome(within: 60)
        #expect(throws: TestError.self) { try outcome.get() }
        #expect(ran.value == true)
    }

    @Test("retry's work on a queue of the user's", arguments: Blocker.allCases)
    func retryOnUserQueue(_ blocker: Blocker) async throws {
        let queue = DispatchQueue(label: "user.concurrent", attributes: .concurrent)
        let retried = Promise<Bool>.retry(on: queue, attempts: 1) { Promise(blocker.blockOnOwnWork()) }
        #expect(try await retried.valueWithin(60))
    }

    // MARK: Cancel handlers

    /// A pending promise whose cancel handler blocks on its own work, and the promise of
    /// whether that work ran in time.
    private static func cancellable(_ blocker: Blocker) -> (promise: Promise<Int>, handled: Promise<Bool>) {
        let promise = Promise<Int>.pending()
        let handled = Promise<Bool>.pending()
        promise.onCancel { handled.fulfill(blocker.blockOnOwnWork()) }
        return (promise, handled)
    }

    @Test("a cancel handler, cancelled from a thread of the user's", arguments: Blocker.allCases)
    func cancelHandler(_ blocker: Blocker) async throws {
        let (promise, handled) = Self.cancellable(blocker)
        await onOwnThread { promise.cancel() }
        #expect(try await handled.valueWithin(60))
    }

    @Test("a cancel handler, cancelled by a timeout, waiting on a timer", arguments: Blocker.allCases)
    func cancelHandlerFromTimeout(_ blocker: Blocker) async throws {
        let promise = Promise<Int>.pending()
        let handled = Promise<Bool>.pending()
        // A delay needs the clock's timers, which fired the timeout.
        promise.onCancel { handled.fulfill(blocker.blockOnOwnWork(through: { $0.delay(0) })) }
        let limited = promise.timeout(0)
        #expect(try await handled.valueWithin(60))
        #expect(limited.isRejected)
    }

    @Test("a cancel handler, cancelled from a Promise { } body", arguments: Blocker.allCases)
    func cancelHandlerFromBody(_ blocker: Blocker) async throws {
        let (promise, handled) = Self.cancellable(blocker)
        _ = Promise<Void> { fulfill, _ in
            promise.cancel()
            fulfill(())
        }
        #expect(try await handled.valueWithin(60))
    }

    @Test("a cancel handler registered on a cancelled promise in a Promise { } body", arguments: Blocker.allCases)
    func lateCancelHandlerInBody(_ blocker: Blocker) async throws {
        let promise = Promise<Int>.pending()
        promise.cancel()
        let handled = Promise<Bool>.pending()
        _ = Promise<Void> { fulfill, _ in
            promise.onCancel { handled.fulfill(blocker.blockOnOwnWork()) }
            fulfill(())
        }
        #expect(try await handled.valueWithin(60))
    }

    @Test("a cancel handler of a promise that then's handler returned too late", arguments: Blocker.allCases)
    func cancelHandlerOfAdoptedPromise(_ blocker: Blocker) async throws {
        // The handler cancels the chain while it runs, so the library cancels the promise it
        // returns once it has returned: inside the job running the handler.
        let (inner, handled) = Self.cancellable(blocker)
        let source = Promise<Int>.pending()
        let chain = Box<Promise<Int>?>(nil)
        chain.withLock { chainSlot in
            chainSlot = source.then { _ in
                chain.value?.cancel()
                return inner
            }
        }
        source.fulfill(1)
        #expect(try await handled.valueWithin(60))
        #expect(inner.isCancelled)
    }

    @Test("a cancel handler of a promise adopted by the client's inline plumbing", arguments: Blocker.allCases)
    func cancelHandlerFromInlinePlumbing(_ blocker: Blocker) async throws {
        // The library cancels `inner` from an observer run on the settling thread, while that
        // thread works through its queue of such observers.
        let (inner, handled) = Self.cancellable(blocker)
        let source = Promise<Int>.pending()
        let chain = Box<Promise<Int>?>(nil)
        chain.withLock { chainSlot in
            chainSlot = source.continueInline { _ in
                chain.value?.cancel()
                return .adopt(inner)
            }
        }
        await onOwnThread { source.fulfill(1) }
        #expect(try await handled.valueWithin(60))
    }

    // MARK: Follow-ups still run on the thread that set them off

    @Test("a chain's next handler still follows on the same thread")
    func chainStaysOnItsThread() async throws {
        let threads = Recorder<pthread_t>()
        let source = Promise<Int>.pending()
        let chained =
            source
            .map { value -> Int in
                threads.append(pthread_self())
                return value + 1
            }
            .map { value -> Int in
                threads.append(pthread_self())
                return value + 1
            }
        source.fulfill(1)
        #expect(try await chained.valueWithin() == 3)
        let recorded = threads.elements
        #expect(recorded.count == 2)
        #expect(pthread_equal(recorded[0], recorded[1]) != 0)
    }
}
