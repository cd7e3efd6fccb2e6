/// What runs once a promise has settled: an operator's step, or the library's bookkeeping.
///
/// It is given the settled promise, as `AnyObject`, and reads the outcome from it
/// (`Promise.withOutcome(of:_:)`), rather than being given the outcome: so nothing that keeps,
/// orders or calls handlers depends on the value's type, and all of it is compiled once.
/// Handlers are closures made where the type is known, so reading the outcome is not generic.
///
/// It is given, too, the object it acts on (`Reaction.target`), usually the promise it
/// settles: `inout`, so that an adoption can ask whether that reference is the only one left
/// (`isKnownUniquelyReferenced`, see `Promise.adopt(_:settling:)`).
@usableFromInline
typealias PromiseHandler = @Sendable (_ settled: AnyObject, _ target: inout any AnyObject & Sendable) -> Void
