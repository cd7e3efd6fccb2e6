import Dispatch

extension Promise {
    /// Rejects with ``PromiseError/validationFailure`` when `predicate` returns `false`.
    ///
    /// ```swift
    /// client.get(CatEndpoint.cats, as: [Cat].self).validate { !$0.isEmpty }
    /// ```
    ///
    /// The result is not discardable: a check whose outcome nobody reads checks nothing.
    @inlinable
    public func validate(
        on queue: DispatchQueue = .promises,
        _ predicate: @escaping @Sendable (Value) throws -> Bool
    ) -> Promise<Value> {
        derive(on: queue) { settled, next in
            Promise.react(to: settled, settling: &next) { result in
                .settle(
                    result.flatMap { value in
                        Result {
                            guard try predicate(value) else { throw PromiseError.validationFailure }
                            return value
                        }
                    })
            }
        }
    }
}
