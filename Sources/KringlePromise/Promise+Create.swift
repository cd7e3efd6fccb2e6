import Dispatch

extension Promise {
    /// Creates a pending promise that you settle later with ``fulfill(_:)`` or ``reject(_:)``.
    ///
    /// ```swift
    /// let promise = Promise<String>.pending()
    /// DispatchQueue.global().async { promise.fulfill("done") }
    /// ```
    @inlinable
    public static func pending() -> Promise<Value> {
        Promise()
    }

    /// Creates a promise that is already fulfilled with `value`.
    @inlinable
    public convenience init(_ value: Value) {
        self.init(settled: .success(value))
    }

    /// Creates a promise that is already rejected with `error`.
    @inlinable
    public convenience init(error: any Error) {
        self.init(settled: .failure(error))
    }

    /// Creates a promise whose `body` runs asynchronously on `queue` and settles it.
    ///
    /// A throw from `body` rejects the promise. Only the first call of `fulfill` or `reject`
    /// counts. `body` may block until promise work it started has run, as on any concurrent
    /// queue.
    ///
    /// ```swift
    /// let promise = Promise<Int> { fulfill, reject in
    ///     fulfill(computeAnswer())
    /// }
    /// ```
    /// - Parameters:
    ///   - queue: Where `body` runs; ``Dispatch/DispatchQueue/promises`` by default.
    ///   - body: Receives the two functions that settle the promise.
    @inlinable
    public convenience init(
        on queue: DispatchQueue = .promises,
        _ body:
            @escaping @Sendable (
                _ fulfill: @escaping @Sendable (Value) -> Void,
                _ reject: @escaping @Sendable (any Error) -> Void
            ) throws -> Void
    ) {
        self.init()
        queue.sendPromiseJob {
            UserCode.run {
                do {
                    try body({ self.fulfill($0) }, { self.reject($0) })
                } catch {
                    self.reject(error)
                }
            }
        }
    }

    /// Fulfils a pending promise with `value`; does nothing if it has settled already.
    @inlinable
    public func fulfill(_ value: Value) {
        settle(.success(value))
    }

    /// Rejects a pending promise with `error`; does nothing if it has settled already.
    @inlinable
    public func reject(_ error: any Error) {
        settle(.failure(error))
    }

    /// Settles a pending promise with `result`; does nothing if it has settled already.
    @inlinable
    public func resolve(_ result: Result<Value, any Error>) {
        settle(result)
    }
}
