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
