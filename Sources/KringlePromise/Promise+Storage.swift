import Dispatch
import Synchronization

/// A handler waiting for a promise's settlement, or, once it has settled, waiting for its
/// queue's drain.
///
/// Handlers travel inside this struct, never as bare closures in an `Optional`, an `Array` or a
/// generic function's result: those hold a closure in its most abstract form, and converting
/// to and from that form costs a thunk (an allocation) each time.
struct Observer: Sendable {
    /// Where the handler runs; `nil` for library bookkeeping that runs on the settling
    /// thread (through the trampoline), never user code.
    let queue: DispatchQueue?
    let handler: PromiseHandler
}

/// What a promise keeps besides its outcome; guarded by the promise's lock.
///
/// Sized for the usual promise: one observer and one drain at a time, kept inline. The rest,
/// rarely needed, goes to an `Overflow` allocated on first use. Nothing here depends on the
/// promise's value type (a handler reads the outcome itself, see `PromiseHandler`): this
/// bookkeeping is compiled once, not for each caller's type, and the generic `deinit`, which
/// Swift cannot specialise, destroys it without looking up generic metadata.
struct PromiseState: Sendable {
    /// The observer registered first, if not yet removed. Before the settlement, the
    /// observers are, in registration order, `first` then `overflow.observers`; after it, the
    /// handlers still to run on queues whose drain is under way.
    var first: Observer?
    /// The queue of the drain started first (of those still running). Its job captures only
    /// the promise, so starting it allocates nothing; it reads its queue from here.
    var primaryQueue: DispatchQueue?
    var overflow: Overflow?
    /// The consumer that runs the job settling the promise itself, if one claimed it. Kept
    /// here rather than in the overflow, at a word in every promise: a consumer blocked in
    /// `wait()` or awaiting `value` claims every promise it waits for, and an overflow costs
    /// an allocation.
    var claim: Claim?
    /// The cancel handler registered first; any others are in `overflow`. Kept here for the
    /// same reason as `claim`: a transport registers one on the promise of every request it
    /// sends. (One word: `CancelHandler` is a class.)
    var firstCancelHandler: CancelHandler?

    var hasObservers: Bool {
        first != nil || overflow.map { $0.observersStart < $0.observers.count } ?? false
    }

    mutating func append(_ observer: consuming Observer) {
        if hasObservers {
            extra().observers.append(observer)
        } else {
            first = observer
        }
    }

    /// The overflow, created on first use.
    mutating func extra() -> Overflow {
        if let overflow { return overflow }
        let created = Overflow()
        overflow = created
        return created
    }

    /// Calls `body` with each observer, in order.
    func forEachObserver(_ body: (Observer) -> Void) {
        if let first { body(first) }
        guard let overflow else { return }
        for index in overflow.observersStart..<overflow.observers.count { body(overflow.observers[index]) }
    }

    /// Records that a drain for `queue` is needed; returns which kind to start, or `nil` when
    /// one is already under way (it will run what was just queued, in order).
    mutating func activate(_ queue: DispatchQueue) -> Drain.Kind? {
        if primaryQueue === queue || overflow?.otherQueues.contains(where: { $0 === queue }) == true { return nil }
        if primaryQueue == nil {
            primaryQueue = queue
            return .primary
        }
        extra().otherQueues.append(queue)
        return .other
    }

    /// Takes the next observer of the drain for `assigned` (`nil`: the primary drain), or ends
    /// that drain when none is left. Called with the lock held.
    ///
    /// Written to compare queues without copying them: every job and observer of a queue
    /// shares its reference count, so each retain would be a contended write.
    mutating func next(for assigned: DispatchQueue?) -> Observer? {
        guard let assigned else {
            guard primaryQueue != nil else { return nil }
            if first?.queue === primaryQueue { return first.take() }
            if let observer = overflow?.removeFirstObserver(on: primaryQueue) { return observer }
            primaryQueue = nil
            return nil
        }
        if first?.queue === assigned { return first.take() }
        guard let overflow else { return nil }
        if let observer = overflow.removeFirstObserver(on: assigned) { return observer }
        if let index = overflow.otherQueues.firstIndex(where: { $0 === assigned }) {
            overflow.otherQueues.remove(at: index)
        }
        return nil
    }

    /// At the settlement: takes out what to set off once the lock is released, starting one
    /// drain per queue that has handlers (step 2 of the walk at the top of `Promise.swift`).
    /// Called with the lock held.
    ///
    /// The cancel handlers are taken out too, to be run (on a cancellation) or released
    /// outside the lock: a first one apart, so that a transport's promise, which holds one,
    /// needs no list of wake-ups built for it alone; any others among the wake-ups.
    mutating func takeWakeUps() -> Settled {
        let wakeUps = wakeUpsForObservers()
        let firstCancelHandler = self.firstCancelHandler.take()
        guard let overflow, !overflow.cancelHandlers.isEmpty else { return (wakeUps, firstCancelHandler) }
        var all: [WakeUp]
        switch wakeUps {
        case .none: all = []
        case .drain(let drain): all = [.drain(drain)]
        case .inline(let handler): all = [.inline(Observer(queue: nil, handler: handler))]
        case .many(let list): all = list
        }
        all += overflow.cancelHandlers.map(WakeUp.cancelHandler)
        overflow.cancelHandlers = []
        return (.many(all), firstCancelHandler)
    }

    /// The bookkeeping observers, taken out, and the drains to start, in registration order.
    mutating func wakeUpsForObservers() -> WakeUps {
        if overflow == nil {
            // The usual promise: no observer, or one.
            guard let observer = first.take() else { return .none }
            guard let queue = observer.queue else { return .inline(observer.handler) }
            first = observer
            guard let kind = activate(queue) else { return .none }
            return .drain(Drain(queue: queue, kind: kind))
        }
        var observers: [Observer] = []
        forEachObserver { observers.append($0) }
        first = nil
        var queued: [Observer] = []
        var wakeUps: [WakeUp] = []
        for observer in observers {
            guard let queue = observer.queue else {
                wakeUps.append(.inline(observer))
                continue
            }
            queued.append(observer)
            if let kind = activate(queue) { wakeUps.append(.drain(Drain(queue: queue, kind: kind))) }
        }
        if let overflow {
            overflow.observers = queued
            overflow.observersStart = 0
        }
        return .many(wakeUps)
    }
}

/// The rarely needed part of a promise's state: more than one observer, drains on more than
/// one queue, cancel handlers after the first, more than one dependency.
// Guarded by the owning promise's lock (details below).
final class Overflow: @unchecked Sendable {
    // Unchecked because it is only touched with the owning promise's lock held, or by its
    // `deinit`. `@exclusivity(unchecked)` for the same reason as in `Promise`.

    /// The observers after `PromiseState.first`, from `observersStart` on (those before it
    /// were removed).
    @exclusivity(unchecked) var observers: [Observer] = []
    @exclusivity(unchecked) var observersStart = 0
    /// The queues of the drains other than the primary one; their jobs carry their queue.
    @exclusivity(unchecked) var otherQueues: [DispatchQueue] = []
    /// What the producer asked to do if the promise is cancelled, after
    /// `PromiseState.firstCancelHandler`.
    @exclusivity(unchecked) var cancelHandlers: [CancelHandler] = []
    /// The dependencies after `Promise.dependency`.
    @exclusivity(unchecked) var dependencies: [WeakNode] = []

    func removeFirstObserver(on queue: DispatchQueue?) -> Observer? {
        guard let index = observers[observersStart...].firstIndex(where: { $0.queue === queue }) else { return nil }
        let observer = observers[index]
        if index == observersStart {
            // The usual case, even with many handlers: they are all for one queue.
            observersStart += 1
        } else {
            observers.remove(at: index)
        }
        if observersStart == observers.count {
            observers = []
            observersStart = 0
        }
        return observer
    }
}

/// What ``PromiseState/takeWakeUps()`` takes out of the state: what to set off, and the first
/// cancel handler (any others are among the wake-ups).
typealias Settled = (wakeUps: WakeUps, firstCancelHandler: CancelHandler?)

/// What a settlement sets off once the lock is released.
///
/// An enum rather than a struct of optionals: Swift copies and destroys such a struct field by
/// field, on every settlement.
enum WakeUps: Sendable {
    /// Nothing observed the promise.
    case none
    /// The usual promise: one handler, whose queue has no drain under way.
    case drain(Drain)
    /// The usual promise observed by the library: one bookkeeping handler.
    case inline(PromiseHandler)
    /// Anything else, in order.
    case many([WakeUp])
}

enum WakeUp: Sendable {
    case drain(Drain)
    case inline(Observer)
    /// Run when the settlement is a cancellation, released otherwise.
    case cancelHandler(CancelHandler)
}

/// A drain to start: one queue's handlers to run.
struct Drain: Sendable {
    enum Kind: Sendable {
        /// The drain whose job captures only the promise and finds its queue in
        /// `PromiseState.primaryQueue`.
        case primary
        /// A drain whose job carries its queue.
        case other
    }

    let queue: DispatchQueue
    let kind: Kind
}

/// A producer's cancel handler, wrapped for the reason given at `Observer`.
///
/// A class, so that `PromiseState.firstCancelHandler` takes one word: with it, a promise stays
/// within 104 bytes, which allocate as 112, where a closure's two words would make it 128.
/// One small allocation per handler costs far less than the overflow it replaces.
final class CancelHandler: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
        self.run = run
    }
}

// MARK: - The outcome

// The only part of a promise's storage that depends on its value type, so the only part the
// caller's module compiles for that type (inlinable): recording and reading the outcome.

extension Promise {
    /// A settled promise's error, or its value when that does not fit in `inlineValue`.
    @usableFromInline
    enum OutcomeReference: Sendable {
        case boxed(ValueBox<Value>)
        case error(any Error)
    }

    /// Whether values of this type are kept as raw bytes in `inlineValue`: trivial types
    /// (`Int`, `Double`, `Void`, small structs of such) that fit. Others are boxed.
    ///
    /// Not simply a `Value?` property, whose destruction in the unspecialised `deinit` would
    /// cost a metadata look-up (see the note at the top of `Promise`): raw bytes and
    /// references need none. (`_isPOD` is the standard library's test for a trivial type;
    /// there is no public one yet.)
    @inlinable
    static var keepsValueInline: Bool {
        _isPOD(Value.self) && MemoryLayout<Value>.size <= MemoryLayout<UInt64>.size
    }

    /// `result` as a promise stores it: its phase, the bytes of a value kept inline, and the
    /// box of any other value, or the error. Stored once, with the lock held, before `phase`
    /// leaves `.pending`, and never changed after.
    @inlinable
    static func stored(_ result: Result<Value, any Error>) -> (
        phase: Phase, inline: UInt64, reference: OutcomeReference?
    ) {
        switch result {
        case .success(let value) where keepsValueInline:
            // A trivial value may be copied as bytes, to any address.
            var inline: UInt64 = 0
            withUnsafeMutableBytes(of: &inline) { $0.storeBytes(of: value, as: Value.self) }
            return (.fulfilled, inline, nil)
        case .success:
            return (.fulfilled, 0, .boxed(ValueBox(result)))
        case .failure(let error):
            return (.rejected, 0, .error(error))
        }
    }

    /// The outcome, read without the lock once `phase` says it is settled (it never changes
    /// after that): a copy, for a reader that keeps it.
    @inlinable
    var settledResult: Result<Value, any Error>? {
        withSettledResult { $0 }
    }

    /// `body`'s answer for the outcome, or `nil` while the promise is pending; the outcome is
    /// lent rather than copied: a value kept in a box (see `ValueBox`) is passed from the box,
    /// where ``settledResult`` copies it (a retain of each reference it holds).
    @inlinable
    func withSettledResult<T>(_ body: (Result<Value, any Error>) throws -> T) rethrows -> T? {
        switch phase.load(ordering: .acquiring) {
        case .pending:
            return nil
        case .fulfilled where Self.keepsValueInline:
            // Read by value: readers run concurrently, so none may take `inout` access.
            return try body(.success(withUnsafeBytes(of: inlineValue) { $0.loadUnaligned(as: Value.self) }))
        case .fulfilled, .rejected, .cancelled:
            switch outcomeReference {
            case .boxed(let box)?: return try body(box.result)
            case .error(let error)?: return try body(.failure(error))
            case nil: return nil
            }
        }
    }

    /// For a handler (see `PromiseHandler`): `body`'s answer for the outcome of `settled`, the
    /// promise of this type the handler was registered on, lent as by ``withSettledResult(_:)``.
    @inlinable
    static func withOutcome<T>(of settled: AnyObject, _ body: (Result<Value, any Error>) throws -> T) rethrows -> T {
        // A handler only ever gets the promise it was registered on, settled.
        try unsafeDowncast(settled, to: Promise<Value>.self).withSettledResult(body)!
    }

    /// Settles this promise as `other`, settled, has: its outcome is copied as stored, which
    /// needs nothing of the value's type (an adoption, a race). `other` is a `Promise<Value>`,
    /// given as its handlers get it. Returns `false` when this promise had settled already.
    @discardableResult
    func settle(asSettled other: AnyObject) -> Bool {
        let other = unsafeDowncast(other, to: Promise<Value>.self)
        let outcome: Phase = other.phase.load(ordering: .acquiring) == .fulfilled ? .fulfilled : .rejected
        return settle(as: outcome, inline: other.inlineValue, reference: other.outcomeReference)
    }
}

/// A fulfilled promise's result when its value is not kept inline (see
/// `Promise.keepsValueInline`): the whole result rather than the value, so that readers can
/// be lent it without a copy. (Holding the value alone would spare this generic class's
/// `deinit` a look-up of the result's metadata, but every reader would then copy the value
/// into a result of its own: measured, that cost more than it saved.)
@usableFromInline
final class ValueBox<Value: Sendable>: Sendable {
    /// Always a success: errors are kept in `OutcomeReference.error`.
    @usableFromInline let result: Result<Value, any Error>

    @inlinable
    init(_ result: Result<Value, any Error>) {
        self.result = result
    }
}
