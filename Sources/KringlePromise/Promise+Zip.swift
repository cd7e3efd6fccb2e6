extension Promise {
    /// Combines this promise with `other` into a promise of both values.
    ///
    /// Rejects as soon as either rejects.
    ///
    /// ```swift
    /// user.zip(settings).done { user, settings in render(user, settings) }
    /// ```
    public func zip<Other>(_ other: Promise<Other>) -> Promise<(Value, Other)> {
        // Not inlinable: its lock is the modules' shared `Locked`, which is SPI.
        let next = Promise<(Value, Other)>(dependingOn: [self, other])
        let slots = Locked<(Value?, Other?)>((nil, nil))
        observeInline(target: next) { settled, _ in
            switch Self.withOutcome(of: settled, { $0 }) {
            case .success(let value):
                if let otherValue = slots.withLock({ slots -> Other? in
                    slots.0 = value; return slots.1
                }) {
                    next.settle(.success((value, otherValue)))
                }
            case .failure(let error):
                next.settle(.failure(error))
            }
        }
        other.observeInline(target: next) { settled, _ in
            switch Promise<Other>.withOutcome(of: settled, { $0 }) {
            case .success(let otherValue):
                if let value = slots.withLock({ slots -> Value? in
                    slots.1 = otherValue; return slots.0
                }) {
                    next.settle(.success((value, otherValue)))
                }
            case .failure(let error):
                next.settle(.failure(error))
            }
        }
        return next
    }

    /// Combines this promise with two others into a promise of the three values.
    ///
    /// Rejects as soon as any of them rejects.
    public func zip<B, C>(_ b: Promise<B>, _ c: Promise<C>) -> Promise<(Value, B, C)> {
        let pairs = zip(b).zip(c)
        let next = Promise<(Value, B, C)>(dependingOn: pairs)
        pairs.observeInline(target: next) { settled, _ in
            next.settle(Promise<((Value, B), C)>.withOutcome(of: settled) { $0.map { pair, c in (pair.0, pair.1, c) } })
        }
        return next
    }
}
