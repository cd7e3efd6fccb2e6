import Testing

extension Trait where Self == TimeLimitTrait {
    /// The time limit of every suite whose tests wait (on a server, a promise, a stream, a
    /// clock or a child process), so that a regression that hangs fails its test rather
    /// than holding CI until the job's own limit (90 minutes).
    ///
    /// Ten minutes per test case: Swift Testing counts in whole minutes, and the slowest
    /// cases (an 8 MiB compressed upload, a 20,000-link promise chain) take a few seconds
    /// here and ten times longer under ThreadSanitizer on a busy two-core machine, which
    /// must not fail them.
    ///
    /// When it runs out, Swift Testing records the hang, naming the test, and cancels the
    /// test's task: that ends an `await` on a promise (`value`, `outcome()`) or a response
    /// stream, which cancel what they wait for. A thread blocked in a synchronous wait is
    /// not freed (the test's task group waits for it), but the log says which test hung.
    public static var generousTimeLimit: Self {
        .timeLimit(.minutes(10))
    }
}
