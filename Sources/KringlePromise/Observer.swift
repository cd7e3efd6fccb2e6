import Dispatch

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
    /// The handler and what it acts on.
    var reaction: Reaction
}
