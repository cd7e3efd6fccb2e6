/// A fulfilled promise's value when it is not kept inline (see `Promise.keepsValueInline`).
///
/// The value alone, not a `Result` of it: this generic class's `deinit` destroys what it
/// holds through that type's metadata, which for `Value` comes with the class's own and for
/// `Result<Value, any Error>` had to be looked up in the runtime's tables, a search that cost
/// about 450 instructions per box, two boxes per request of the client. A reader is lent a
/// result made of the value, which costs a retain of each reference in it: one for a
/// response, whose fields are in one storage.
@usableFromInline
final class ValueBox<Value: Sendable>: Sendable {
    @usableFromInline let value: Value

    @inlinable
    init(_ value: Value) {
        self.value = value
    }
}
