extension Promise {
    /// Creates a promise from asynchronous work (a bridge from Swift concurrency).
    ///
    /// The work runs in a new `Task`, never on a thread of the library's; cancelling the
    /// promise cancels that task.
    ///
    /// ```swift
    /// let promise = Promise { try await loadConfiguration() }
    /// ```
    public convenience init(
        priority: TaskPriority? = nil,
        _ body: @escaping @Sendable () async throws -> Value
    ) {
        self.init()
        let task = Task(priority: priority) {
            do {
                self.fulfill(try await body())
            } catch {
                self.reject(error)
            }
        }
        onCancel { task.cancel() }
    }

    /// The value, awaited (a bridge to Swift concurrency).
    ///
    /// Throws the rejection error. If the awaiting task is cancelled, the promise is
    /// cancelled (and with it the work it depends on), and this throws
    /// ``PromiseError/cancelled``.
    ///
    /// ```swift
    /// let cats = try await client.get(CatEndpoint.cats, as: [Cat].self).value
    /// ```
    ///
    /// (Inlinable, so that reading the value is compiled for `Value` where it is awaited:
    /// generic, it would look up type metadata at run time on every call. The waiting itself
    /// never touches the value, and is not.)
    @inlinable
    public var value: Value {
        get async throws {
            await settlement()
            // Settled: the waiting returns only then (a cancelled task cancels the promise).
            return try settledResult!.get()
        }
    }

    /// Returns once the promise has settled; cancels the promise if the awaiting task is
    /// cancelled (see ``value``).
    @usableFromInline
    func settlement() async {
        await withTaskCancellationHandler {
            // The job that settles this promise may be handed to this task (see `Claim`): it
            // then runs here, on the global executor (this method is nonisolated), not on the
            // caller's actor.
            var claim: Claim?
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let made = Claim { continuation.resume() }
                claim = made
                register(made)
                // An offer made but not taken by then is moot: the promise settled, so its
                // job would do nothing.
                observeInline(target: made) { _, claim in _ = unsafeDowncast(claim, to: Claim.self).close() }
            }
            claim?.take()?.run()
            // Woken by the settlement, or by an offer whose job, just run, settled it.
        } onCancel: {
            self.cancel()
        }
    }
}
