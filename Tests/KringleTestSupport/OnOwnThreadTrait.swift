import Testing

/// Runs a test, or each test of a suite, on an ``OwnThreadExecutor``: see
/// ``Testing/Trait/onOwnThread``.
public struct OnOwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    /// On a suite, it applies to every test in it, nested suites' too.
    public var isRecursive: Bool { true }

    /// Runs `function`, one test case, on threads of its own.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope holds no test code.
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(OwnThreadExecutor(), operation: function)
    }
}

extension Trait where Self == OnOwnThreadTrait {
    /// Runs the test, or each test of the suite, on threads of its own rather than on Swift
    /// concurrency's cooperative pool (``onOwnThread(_:)`` says why): for synchronous tests
    /// that block all along, such as those that talk to a server through a blocking socket.
    ///
    /// ```swift
    /// @Suite(.onOwnThread) struct RawSocketTests { … }
    /// ```
    public static var onOwnThread: Self {
        Self()
    }
}
