/// The errors that the promise library itself produces.
///
/// Errors thrown by your own handlers, or passed to ``Promise/reject(_:)``, travel through
/// a chain unchanged; these cases are only the ones the library creates.
public enum PromiseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The promise was cancelled with ``Promise/cancel()`` before it settled, or it depends
    /// on a promise that was.
    case cancelled
    /// A ``Promise/timeout(_:clock:)`` or ``Promise/wait(timeout:)`` ran out before the promise settled.
    case timedOut
    /// A ``Promise/validate(on:_:)`` predicate returned `false`.
    case validationFailure
    /// A promise was asked to adopt the state of a promise that (directly or through other
    /// pending promises) waits for it, which would never settle.
    case adoptionCycle
    /// ``Promise/race(_:)`` or ``Promise/any(_:)`` was given no promises, so nothing could
    /// ever settle it.
    case emptyInput

    /// A sentence saying what happened.
    public var description: String {
        switch self {
        case .cancelled:
            return "The promise was cancelled."
        case .timedOut:
            return "The promise did not settle before its timeout."
        case .validationFailure:
            return "The promise's value did not pass validation."
        case .adoptionCycle:
            return "A promise was resolved with a promise that waits for it (an adoption cycle)."
        case .emptyInput:
            return "race or any was called with no promises."
        }
    }
}

extension Error {
    /// Whether this error is ``PromiseError/cancelled``: the work was cancelled rather than
    /// failed.
    ///
    /// ```swift
    /// request.catch { error in
    ///     guard !error.isCancellation else { return }
    ///     show(error)
    /// }
    /// ```
    public var isCancellation: Bool {
        (self as? PromiseError) == .cancelled
    }
}
