/// A handler with the object it acts on (see `PromiseHandler`): the promise it settles, or
/// whatever a waiter wakes.
///
/// The object is an argument of the handler rather than a capture of its closure: an
/// operator's closure then holds only the user's closure, and the handler learns from this
/// one reference whether anything else still holds the promise it settles (see
/// `Promise.adopt(_:settling:)`). Never `nil`: a reference that cannot be `nil` lends
/// `PromiseState` the spare bits that tell its cases apart, which keeps a promise within 72
/// bytes.
struct Reaction: Sendable {
    let handler: PromiseHandler
    var target: any AnyObject & Sendable

    /// Calls the handler for `settled`, the promise it was registered on.
    mutating func run(_ settled: AnyObject) {
        handler(settled, &target)
    }
}
