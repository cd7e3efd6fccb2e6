/// A producer's cancel handler, wrapped for the reason given at `Observer`: the overflow keeps
/// them in an array (`Overflow.cancelHandlers`).
struct CancelHandler: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
        self.run = run
    }
}
