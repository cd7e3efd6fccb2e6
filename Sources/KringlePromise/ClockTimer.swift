/// A timer scheduled on a ``KringleClock``; only that clock gives it a meaning.
public struct ClockTimer: Hashable, Sendable {
    /// The clock's number for the timer.
    public let id: UInt64

    /// A timer with the clock's own number for it.
    public init(id: UInt64) {
        self.id = id
    }
}
