extension Promise {
    /// Fulfils with every value, in the order of `promises`, once all are fulfilled;
    /// rejects as soon as one rejects.
    ///
    /// An empty array fulfils with `[]`.
    ///
    /// ```swift
    /// Promise.all(names.map { client.get(CatEndpoint.pet(catName: $0), as: Cat.self) })
    ///     .done { cats in print(cats) }
    /// ```
    @inlinable
    public static func all<Element>(_ promises: [Promise<Element>]) -> Promise<[Element]>
    where Value == [Element] {
        gather(promises) { result in
            switch result {
            case .success: return nil
            case .failure(let error): return .failure(error)
            }
        } finish: { slots in
            .success(slots.compactMap { try? $0?.get() })
        }
    }

    /// Fulfils with every promise's result, in order, once all have settled. Never rejects.
    @inlinable
    public static func allSettled<Element>(_ promises: [Promise<Element>]) -> Promise<[Result<Element, any Error>]>
    where Value == [Result<Element, any Error>] {
        gather(promises) { _ in
            nil
        } finish: { slots in
            .success(slots.compactMap { $0 })
        }
    }

    /// Settles like the first of `promises` to settle.
    ///
    /// An empty array rejects with ``PromiseError/emptyInput``.
    @inlinable
    public static func race(_ promises: [Promise<Value>]) -> Promise<Value> {
        guard !promises.isEmpty else { return Promise(error: PromiseError.emptyInput) }
        let next = Promise<Value>(dependingOn: promises)
        for promise in promises {
            promise.observeInline { next.settle($0) }
        }
        return next
    }

    /// Fulfils like the first of `promises` to be fulfilled; rejects only when all reject,
    /// with the error of the first promise in the array.
    ///
    /// An empty array rejects with ``PromiseError/emptyInput``.
    @inlinable
    public static func any(_ promises: [Promise<Value>]) -> Promise<Value> {
        guard !promises.isEmpty else { return Promise(error: PromiseError.emptyInput) }
        return gather(promises) { result in
            switch result {
            case .success(let value): return .success(value)
            case .failure: return nil
            }
        } finish: { slots in
            guard case .failure(let error)? = slots.first ?? nil else { return .failure(PromiseError.emptyInput) }
            return .failure(error)
        }
    }

    /// The shared core of `all`, `allSettled` and `any`: collects every result in order.
    ///
    /// - Parameters:
    ///   - early: Called with each result as it arrives; a non-`nil` answer settles at once.
    ///   - finish: Builds the outcome from all results once every promise has settled.
    // Not inlinable: its lock is the modules' shared `Locked`, which inlinable code cannot use
    // (SPI). It runs once per call, not per promise, so that costs next to nothing.
    @usableFromInline
    static func gather<Element>(
        _ promises: [Promise<Element>],
        early: @escaping @Sendable (Result<Element, any Error>) -> Result<Value, any Error>?,
        finish: @escaping @Sendable ([Result<Element, any Error>?]) -> Result<Value, any Error>
    ) -> Promise<Value> {
        let next = Promise<Value>(dependingOn: promises)
        guard !promises.isEmpty else {
            next.settle(finish([]))
            return next
        }
        let collected = Locked(Collected<Element>(count: promises.count))
        for (index, promise) in promises.enumerated() {
            promise.observeInline { result in
                if let outcome = early(result) {
                    next.settle(outcome)
                    return
                }
                if let slots = collected.withLock({ $0.store(result, at: index) }) {
                    next.settle(finish(slots))
                }
            }
        }
        return next
    }
}

/// Results gathered so far by `all`, `allSettled` and `any`.
@usableFromInline
struct Collected<Element: Sendable>: Sendable {
    @usableFromInline var slots: [Result<Element, any Error>?]
    @usableFromInline var remaining: Int

    @inlinable
    init(count: Int) {
        slots = Array(repeating: nil, count: count)
        remaining = count
    }

    /// Stores one result; returns all of them once the last one arrives.
    @inlinable
    mutating func store(_ result: Result<Element, any Error>, at index: Int) -> [Result<Element, any Error>?]? {
        slots[index] = result
        remaining -= 1
        return remaining == 0 ? slots : nil
    }
}
