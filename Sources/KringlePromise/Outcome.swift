/// What an operator's handler decided for the promise it derives. Kringle's pipeline uses
/// it too (``Promise/continueInline(_:)``), so it is `package`: not public API.
@usableFromInline
package enum Outcome<Value: Sendable>: Sendable {
    /// Settle with this result.
    case settle(Result<Value, any Error>)
    /// Settle as this promise does.
    case adopt(Promise<Value>)
}
