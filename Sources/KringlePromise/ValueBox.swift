/// A fulfilled promise's result when its value is not kept inline (see
/// `Promise.keepsValueInline`): the whole result rather than the value, so that readers can
/// be lent it without a copy. (Holding the value alone would spare this generic class's
/// `deinit` a look-up of the result's metadata, but every reader would then copy the value
/// into a result of its own: measured, that cost more than it saved.)
@usableFromInline
final class ValueBox<Value: Sendable>: Sendable {
    /// Always a success: errors are kept in an `ErrorBox`.
    @usableFromInline let result: Result<Value, any Error>

    @inlinable
    init(_ result: Result<Value, any Error>) {
        self.result = result
    }
}
