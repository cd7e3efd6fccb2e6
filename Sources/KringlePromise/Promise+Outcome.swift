import Synchronization

extension Promise {
    /// The bytes that hold a small trivial value (see `keepsValueInline`). One word: enough
    /// for an `Int`, a `Double`, a `Bool`, `Void`, and it keeps a promise within 104 bytes.
    @usableFromInline typealias InlineValue = UInt64

    /// A settled promise's error, or its value when that does not fit in `inlineValue`.
    @usableFromInline
    enum OutcomeReference: Sendable {
        case boxed(ValueBox<Value>)
        case error(any Error)
    }

    /// Whether values of this type are kept as raw bytes in `inlineValue`: trivial types
    /// (`Int`, `Double`, `Void`, small structs of such) that fit. Others are boxed.
    ///
    /// Not simply a `Value?` property, whose destruction in the unspecialised `deinit` would
    /// cost a metadata look-up (see the note at the top of `Promise`): raw bytes and
    /// references need none. (`_isPOD` is the standard library's test for a trivial type;
    /// there is no public one yet.)
    @inlinable
    static var keepsValueInline: Bool {
        _isPOD(Value.self) && MemoryLayout<Value>.size <= MemoryLayout<InlineValue>.size
    }

    /// Records the outcome. Called once, with the lock held, before `phase` leaves `.pending`.
    @inlinable
    func storeOutcome(_ result: Result<Value, any Error>) {
        switch result {
        case .success(let value) where Self.keepsValueInline:
            // A trivial value may be copied as bytes, to any address.
            withUnsafeMutableBytes(of: &inlineValue) { $0.storeBytes(of: value, as: Value.self) }
        case .success:
            outcomeReference = .boxed(ValueBox(result))
        case .failure(let error):
            outcomeReference = .error(error)
        }
    }

    /// The outcome, read without the lock once `phase` says it is settled (it never changes
    /// after that): a copy, for a reader that keeps it.
    @inlinable
    var settledResult: Result<Value, any Error>? {
        var copy: Result<Value, any Error>?
        withSettledResult { copy = $0 }
        return copy
    }

    /// Runs `body` with the outcome, unless the promise is pending, lent rather than
    /// copied: a value kept in a box (see `ValueBox`) is passed from the box, where
    /// ``settledResult`` copies it (a retain of each reference it holds) for every reader.
    @inlinable
    func withSettledResult(_ body: (Result<Value, any Error>) -> Void) {
        switch phase.load(ordering: .acquiring) {
        case .pending:
            return
        case .fulfilled where Self.keepsValueInline:
            // Read by value: readers run concurrently, so none may take `inout` access.
            body(.success(withUnsafeBytes(of: inlineValue) { $0.loadUnaligned(as: Value.self) }))
        case .fulfilled, .rejected, .cancelled:
            switch outcomeReference {
            case .boxed(let box)?: body(box.result)
            case .error(let error)?: body(.failure(error))
            case nil: return
            }
        }
    }
}

/// A fulfilled promise's result when its value is not kept inline (see
/// `Promise.keepsValueInline`): the whole result rather than the value, so that readers can
/// be lent it without a copy. Destroying it costs a release; its own `deinit` finds `Value`
/// in its metadata directly.
@usableFromInline
final class ValueBox<Value: Sendable>: Sendable {
    /// Always a success: errors are kept in `OutcomeReference.error`.
    @usableFromInline let result: Result<Value, any Error>

    @inlinable
    init(_ result: Result<Value, any Error>) {
        self.result = result
    }
}
