import Foundation
import KringlePromise
import KringleTestSupport

/// Something to hold weakly, to prove that a promise released what it captured.
final class Canary: Sendable {}

/// Runs blocking `body` on a thread of its own, so that it does not hold one of Swift
/// concurrency's few cooperative threads while it blocks.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
