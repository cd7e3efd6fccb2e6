@_spi(KringleInternals) import KringlePromise

/// A handle on a callback-style request: dispose of it to cancel the request and any
/// retry still to come.
///
/// Disposing is idempotent and safe from any thread. If the request has not finished, its
/// completion receives ``NetworkResult/cancelled``.
public final class Disposable: Sendable {
    private let onDispose: Locked<(@Sendable () -> Void)?>

    /// Creates a handle that runs `onDispose` the first time it is disposed.
    public init(onDispose: @escaping @Sendable () -> Void) {
        self.onDispose = Locked(onDispose)
    }

    /// A handle that is disposed already.
    public static func disposed() -> Disposable {
        let disposable = Disposable {}
        disposable.dispose()
        return disposable
    }

    /// Whether ``dispose()`` has been called.
    public var isDisposed: Bool {
        onDispose.withLock { $0 == nil }
    }

    /// Cancels the request, once.
    public func dispose() {
        let action = onDispose.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }
}
