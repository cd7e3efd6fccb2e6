/// A rejected promise's error, as its outcome stores it (see `Promise.stored(_:)`): in a class,
/// so that the outcome is one reference whatever it holds, and non-generic, so that the
/// library's bookkeeping can reject a promise of any type (a cancellation, an adoption cycle).
@usableFromInline
final class ErrorBox: Sendable {
    @usableFromInline let error: any Error

    @inlinable
    init(_ error: any Error) {
        self.error = error
    }

    /// The outcome of every cancelled promise, shared.
    static let cancelled = ErrorBox(PromiseError.cancelled)
}
