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
    case inline(Reaction)
    /// Anything else, in order, then the cancel handlers after the first.
    case many([WakeUp])
}
