import Synchronization

extension Promise {
    // These read `phase` alone, without the lock: it is atomic, and the outcome it reports
    // never changes once settled.

    /// Whether the promise has not settled yet.
    @inlinable
    public var isPending: Bool {
        phase.load(ordering: .acquiring) == .pending
    }

    /// Whether the promise was fulfilled with a value.
    @inlinable
    public var isFulfilled: Bool {
        phase.load(ordering: .acquiring) == .fulfilled
    }

    /// Whether the promise was rejected (cancellation included).
    @inlinable
    public var isRejected: Bool {
        let phase = phase.load(ordering: .acquiring)
        return phase == .rejected || phase == .cancelled
    }

    /// Whether the promise was settled by ``cancel()`` (itself or through a promise
    /// depending on it).
    @inlinable
    public var isCancelled: Bool {
        phase.load(ordering: .acquiring) == .cancelled
    }

    /// The outcome, or `nil` while the promise is pending.
    @inlinable
    public var result: Result<Value, any Error>? {
        settledResult
    }
}
