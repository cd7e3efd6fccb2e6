/// A stage of ``Promise/mapSuccess(_:on:)``: a decision on the thread that settles the
/// promise, then work on a queue with the value decided. Kringle's pipeline writes its last
/// hop and its decode as one (`package`: not public API).
@usableFromInline
package protocol SuccessStep: Sendable {
    associatedtype Input: Sendable
    associatedtype Decided: Sendable
    associatedtype Output: Sendable

    /// The value for ``run(_:)`` (``Outcome/settle(_:)``), or the promise of it
    /// (``Outcome/adopt(_:)``); on the settling thread, so quick. A failure skips `run`.
    func decide(_ result: Result<Input, any Error>) throws -> Outcome<Decided>
    /// Whether a consumer waiting for the step's promise may run ``run(_:)`` for `value`
    /// itself (see ``Promise/mapSuccess(on:consumerMayRun:_:)``).
    func consumerMayRun(_ value: Decided) -> Bool
    /// The work for the value decided, on the step's queue (or by its consumer).
    func run(_ value: Decided) throws -> Output
}
