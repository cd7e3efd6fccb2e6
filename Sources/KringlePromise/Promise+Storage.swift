import Synchronization

// The only part of a promise's storage that depends on its value type, so the only part the
// caller's module compiles for that type (inlinable): recording and reading the outcome.

extension Promise {
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
        _isPOD(Value.self) && MemoryLayout<Value>.size <= MemoryLayout<UInt64>.size
    }

    /// `result` as a promise stores it: its phase, the bytes of a value kept inline, and the
    /// box of any other value, or the error. Stored once, with the lock held, before `phase`
    /// leaves `.pending`, and never changed after.
    @inlinable
    static func stored(_ result: Result<Value, any Error>) -> (
        phase: Phase, inline: UInt64, reference: OutcomeReference?
    ) {
        switch result {
        case .success(let value) where keepsValueInline:
            // A trivial value may be copied as bytes, to any address.
            var inline: UInt64 = 0
            withUnsafeMutableBytes(of: &inline) { $0.storeBytes(of: value, as: Value.self) }
            return (.fulfilled, inline, nil)
        case .success:
            return (.fulfilled, 0, .boxed(ValueBox(result)))
        case .failure(let error):
            return (.rejected, 0, .error(error))
        }
    }

    /// The outcome, read without the lock once `phase` says it is settled (it never changes
    /// after that): a copy, for a reader that keeps it.
    @inlinable
    var settledResult: Result<Value, any Error>? {
        withSettledResult { $0 }
    }

    /// `body`'s answer for the outcome, or `nil` while the promise is pending; the outcome is
    /// lent rather than copied: a value kept in a box (see `ValueBox`) is passed from the box,
    /// where ``settledResult`` copies it (a retain of each reference it holds).
    @inlinable
    func withSettledResult<T>(_ body: (Result<Value, any Error>) throws -> T) rethrows -> T? {
        switch phase.load(ordering: .acquiring) {
        case .pending:
            return nil
        case .fulfilled where Self.keepsValueInline:
            // Read by value: readers run concurrently, so none may take `inout` access.
            return try body(.success(withUnsafeBytes(of: inlineValue) { $0.loadUnaligned(as: Value.self) }))
        case .fulfilled, .rejected, .cancelled:
            switch outcomeReference {
            case .boxed(let box)?: return try body(box.result)
            case .error(let error)?: return try body(.failure(error))
            case nil: return nil
            }
        }
    }

    /// For a handler (see `PromiseHandler`): `body`'s answer for the outcome of `settled`, the
    /// promise of this type the handler was registered on, lent as by ``withSettledResult(_:)``.
    @inlinable
    static func withOutcome<T>(of settled: AnyObject, _ body: (Result<Value, any Error>) throws -> T) rethrows -> T {
        // A handler only ever gets the promise it was registered on, settled.
        try unsafeDowncast(settled, to: Promise<Value>.self).withSettledResult(body)!
    }

    /// Settles this promise as `other`, settled, has: its outcome is copied as stored, which
    /// needs nothing of the value's type (an adoption, a race). `other` is a `Promise<Value>`,
    /// given as its handlers get it. Returns `false` when this promise had settled already.
    @discardableResult
    func settle(asSettled other: AnyObject) -> Bool {
        let other = unsafeDowncast(other, to: Promise<Value>.self)
        let outcome: Phase = other.phase.load(ordering: .acquiring) == .fulfilled ? .fulfilled : .rejected
        return settle(as: outcome, inline: other.inlineValue, reference: other.outcomeReference)
    }
}
