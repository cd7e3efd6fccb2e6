import Synchronization

// The only part of a promise's storage that depends on its value type, so the only part the
// caller's module compiles for that type (inlinable): recording and reading the outcome.

extension Promise {
    /// Whether values of this type are kept as raw bytes in `outcome`: trivial types (`Int`,
    /// `Double`, `Void`, small structs of such) that fit. Others are boxed.
    ///
    /// Not simply a `Value?` property, whose destruction in the unspecialised `deinit` would
    /// cost a metadata look-up (see the note at the top of `Promise`): raw bytes and
    /// references need none. (`_isPOD` is the standard library's test for a trivial type;
    /// there is no public one yet.)
    @inlinable
    static var keepsValueInline: Bool {
        _isPOD(Value.self) && MemoryLayout<Value>.size <= MemoryLayout<UInt64>.size
    }

    /// `result` as a promise stores it: one word, the bytes of a value kept inline, or a
    /// reference to a `ValueBox` of any other value or to an `ErrorBox` of the error, retained
    /// for the promise that stores it. Stored once, with the lock held, before `phase` leaves
    /// `.pending`, and never changed after; the reference is released by the promise's
    /// `deinit`.
    ///
    /// One word rather than an enum of a word and a reference: which it holds follows from
    /// the phase and the value's type, and a word less keeps a promise within 72 bytes.
    @inlinable
    static func stored(_ result: Result<Value, any Error>) -> StoredOutcome {
        switch result {
        case .success(let value) where keepsValueInline:
            // A trivial value may be copied as bytes, to any address.
            var inline: UInt64 = 0
            withUnsafeMutableBytes(of: &inline) { $0.storeBytes(of: value, as: Value.self) }
            return StoredOutcome(phase: .fulfilled, word: inline, isReference: false)
        case .success(let value):
            return StoredOutcome(phase: .fulfilled, retaining: ValueBox(value))
        case .failure(let error):
            return StoredOutcome(phase: .rejected, retaining: ErrorBox(error))
        }
    }

    /// The outcome, read without the lock once `phase` says it is settled (it never changes
    /// after that): a copy, for a reader that keeps it.
    @inlinable
    var settledResult: Result<Value, any Error>? {
        withSettledResult { $0 }
    }

    /// `body`'s answer for the outcome, or `nil` while the promise is pending; the outcome is
    /// lent for the call: an error from its box, a boxed value in a result made for the call
    /// (see `ValueBox` for what that costs), which ``settledResult`` returns to keep.
    @inlinable
    func withSettledResult<T>(_ body: (Result<Value, any Error>) throws -> T) rethrows -> T? {
        switch phase.load(ordering: .acquiring) {
        case .pending:
            return nil
        case .fulfilled where Self.keepsValueInline:
            // Read by value: readers run concurrently, so none may take `inout` access.
            return try body(.success(withUnsafeBytes(of: outcome) { $0.loadUnaligned(as: Value.self) }))
        case .fulfilled:
            // The box lives as long as this promise, which the caller holds.
            return try Unmanaged<ValueBox<Value>>.fromOpaque(outcomePointer)._withUnsafeGuaranteedRef {
                try body(.success($0.value))
            }
        case .rejected, .cancelled:
            return try Unmanaged<ErrorBox>.fromOpaque(outcomePointer)._withUnsafeGuaranteedRef {
                try body(.failure($0.error))
            }
        }
    }

    /// The reference `outcome` holds, once settled with anything but a value kept inline.
    @inlinable
    var outcomePointer: UnsafeRawPointer {
        UnsafeRawPointer(bitPattern: UInt(outcome)).unsafelyUnwrapped
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
        let phase: Phase = other.phase.load(ordering: .acquiring) == .fulfilled ? .fulfilled : .rejected
        if other.outcomeIsReference {
            _ = Unmanaged<AnyObject>.fromOpaque(other.outcomePointer).retain()
        }
        return settle(StoredOutcome(phase: phase, word: other.outcome, isReference: other.outcomeIsReference))
    }
}
