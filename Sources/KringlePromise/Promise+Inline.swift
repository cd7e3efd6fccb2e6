/// Plumbing for Kringle's own modules, not public API: these run their closure on the thread
/// that settles the promise (a transport's delegate queue, say), saving a queue hop for
/// work that is tiny and never blocks. User handlers always go through `then` and friends,
/// which never run synchronously.
@_spi(KringleInternals)
extension Promise {
    /// The promise of `body`'s result, run on the settling thread.
    public func mapResultInline<Next: Sendable>(
        _ body: @escaping @Sendable (Result<Value, any Error>) throws -> Next
    ) -> Promise<Next> {
        let next = Promise<Next>(dependingOn: self)
        observeInline { result in
            guard next.isPending else { return }
            next.settle(Result { try body(result) })
        }
        return next
    }

    /// The promise that adopts the promise `body` returns, `body` run on the settling thread.
    public func flatMapResultInline<Next: Sendable>(
        _ body: @escaping @Sendable (Result<Value, any Error>) throws -> Promise<Next>
    ) -> Promise<Next> {
        let next = Promise<Next>(dependingOn: self)
        observeInline { result in
            guard next.isPending else { return }
            do { next.adopt(try body(result)) } catch { next.settle(.failure(error)) }
        }
        return next
    }
}
