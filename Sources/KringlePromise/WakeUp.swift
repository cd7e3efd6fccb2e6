/// One thing a settlement sets off, among ``WakeUps/many(_:)``.
enum WakeUp: Sendable {
    case drain(Drain)
    case inline(Reaction)
    /// Run when the settlement is a cancellation, released otherwise.
    case cancelHandler(CancelHandler)
}
