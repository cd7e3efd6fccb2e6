/// Runs `body`, which blocks (a promise's `wait()`, a semaphore, a socket read, a child
/// process, a server starting), on a thread of its own, and returns what it returns.
///
/// Swift Testing runs every test, a synchronous one too, on Swift concurrency's cooperative
/// pool, which has only as many threads as the machine has cores (two on CI). A test that
/// blocks one of them holds back every other test that waits to start or to resume; under
/// ThreadSanitizer, ten times slower, long enough for their bounded waits to run out. So a
/// test blocks only in here, or in a test marked ``Testing/Trait/onOwnThread``.
///
/// `body` still runs as part of the calling task (an ``OwnThreadExecutor`` is that task's
/// executor while it runs), so an `#expect` or `#require` inside it is recorded for the
/// test, and it may use what the test holds without that being `Sendable`.
///
/// ```swift
/// let response = try await onOwnThread { try client.readResponse() }
/// ```
public func onOwnThread<Value, Failure: Error>(_ body: () throws(Failure) -> Value) async throws(Failure) -> Value {
    try await withTaskExecutorPreference(OwnThreadExecutor()) { () async throws(Failure) -> Value in try body() }
}
