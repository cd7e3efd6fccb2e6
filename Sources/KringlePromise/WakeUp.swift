/// One thing a settlement sets off, among ``WakeUps/many(_:)``.
enum WakeUp: Sendable {
    case drain(Drain)
    case inline(Reaction)
}
