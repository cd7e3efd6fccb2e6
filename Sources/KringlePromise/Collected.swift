import Synchronization

/// Results gathered so far by `all`, `allSettled` and `any`: one slot per promise, and a
/// count of the slots still empty.
///
/// Lock-free, and inlinable for that (the modules' lock is SPI, which inlinable code cannot
/// use): each slot is written once, by the thread that settles its promise, before that
/// thread counts down (a releasing write); the thread whose count-down reaches zero reads
/// the slots after it (an acquiring read), so no slot is read while it is written.
@usableFromInline
final class Collected<Element: Sendable>:
    // Guarded by the count-down described above.
    @unchecked Sendable
{
    @usableFromInline let slots: UnsafeMutableBufferPointer<Result<Element, any Error>?>
    @usableFromInline let remaining: Atomic<Int>

    @inlinable
    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
        remaining = Atomic(count)
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    /// Stores one result; returns all of them once the last one arrives.
    @inlinable
    func store(_ result: Result<Element, any Error>, at index: Int) -> [Result<Element, any Error>?]? {
        slots[index] = result
        guard remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return nil }
        return Array(slots)
    }
}
