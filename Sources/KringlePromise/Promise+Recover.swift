import Dispatch

extension Promise {
    /// Turns a rejection into a value; a fulfilment passes through untouched.
    ///
    /// ```swift
    /// let cats = client.get(.cats, as: [Cat].self).recover { _ in [] }
    /// ```
    /// - Parameters:
    ///   - queue: Where `body` runs; ``Dispatch/DispatchQueue/promises`` by default.
    ///   - body: Returns a replacement value, or throws to keep the promise rejected.
    @inlinable
    @discardableResult
    public func recover(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (any Error) throws -> Value
    ) -> Promise<Value> {
        derive(on: queue, passing: body) { result, body in
            switch result {
            case .success: return .settle(result)
            case .failure(let error): return .settle(Result { try body(error) })
            }
        }
    }

    /// Turns a rejection into more work; the returned promise adopts its state.
    ///
    /// ```swift
    /// let cats = primary.get(.cats, as: [Cat].self)
    ///     .recover { _ in mirror.get(.cats, as: [Cat].self) }
    /// ```
    /// - Parameters:
    ///   - queue: Where `body` runs; ``Dispatch/DispatchQueue/promises`` by default.
    ///   - body: Returns a promise to use instead, or throws to keep the promise rejected.
    @inlinable
    @discardableResult
    public func recover(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (any Error) throws -> Promise<Value>
    ) -> Promise<Value> {
        derive(on: queue, passing: body) { result, body in
            switch result {
            case .success:
                return .settle(result)
            case .failure(let error):
                do { return .adopt(try body(error)) } catch { return .settle(.failure(error)) }
            }
        }
    }
}
