import Synchronization

/// How far a promise has got. Stored in an atomic so that state queries and the handlers of
/// a settled promise can read the outcome without taking the lock.
///
/// Declared outside `Promise` on purpose: a type nested in a generic class is itself generic,
/// and `Atomic` of a generic type costs metadata look-ups in the (unspecialisable) `deinit`.
@usableFromInline
enum Phase: UInt8, AtomicRepresentable, Sendable {
    case pending
    case fulfilled
    case rejected
    /// Rejected by ``Promise/cancel()`` with ``PromiseError/cancelled``.
    case cancelled
}
