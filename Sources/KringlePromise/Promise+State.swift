import Synchronization

extension Promise {
    /// Whether the promise has not settled yet.
    @inlinable
    public var isPending: Bool {
        state.withLock { $0.result == nil }
    }

    /// Whether the promise was fulfilled with a value.
    @inlinable
    public var isFulfilled: Bool {
        state.withLock { state in
            if case .success = state.result { return true }
            return false
        }
    }

    /// Whether the promise was rejected (cancellation included).
    @inlinable
    public var isRejected: Bool {
        state.withLock { state in
            if case .failure = state.result { return true }
            return false
        }
    }

    /// Whether the promise was settled by ``cancel()`` (itself or through a promise
    /// depending on it).
    @inlinable
    public var isCancelled: Bool {
        state.withLock { $0.isCancelled }
    }

    /// The outcome, or `nil` while the promise is pending.
    @inlinable
    public var result: Result<Value, any Error>? {
        state.withLock { $0.result }
    }
}
