/// A settled promise's outcome as stored: its phase and one word, the bytes of a value kept
/// inline or a reference to the box of any other value or of the error (see
/// `Promise.stored(_:)`).
@usableFromInline
struct StoredOutcome: Sendable {
    @usableFromInline let phase: Phase
    @usableFromInline let word: UInt64
    /// Whether `word` is a reference, retained once for whoever stores it.
    @usableFromInline let isReference: Bool

    @inlinable
    init(phase: Phase, word: UInt64, isReference: Bool) {
        self.phase = phase
        self.word = word
        self.isReference = isReference
    }

    /// The outcome of a reference, which the new outcome holds once more.
    @inlinable
    init(phase: Phase, retaining object: AnyObject) {
        self.phase = phase
        word = UInt64(UInt(bitPattern: Unmanaged.passRetained(object).toOpaque()))
        isReference = true
    }

    /// A cancellation's outcome.
    static var cancelled: StoredOutcome { StoredOutcome(phase: .cancelled, retaining: ErrorBox.cancelled) }

    /// Lets go of the reference, for an outcome that was not stored after all.
    func discard() {
        if isReference { Self.release(word) }
    }

    /// Releases the reference `word` holds.
    static func release(_ word: UInt64) {
        Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: UInt(word))!).release()
    }
}
