import ChildProcess
import Foundation

/// This test binary run again in a child process, running one test there with an
/// environment of the test's choosing: for what a process reads from its environment,
/// which a test cannot change in its own process without changing it for every test that
/// runs beside it.
///
/// The test is both sides. In the child (``isChild(_:)``) it reports what it read, on lines
/// of its own on standard output; in the parent it starts the child and checks the report.
///
/// ```swift
/// @Test func readsTheVariable() async throws {
///     if ChildTestRun.isChild("readsTheVariable") { return print("read:", getenv("CAT") != nil) }
///     let child = try await ChildTestRun.run("MySuite/readsTheVariable", setting: ["CAT": "Tom"])
///     #expect(child.text.contains("read: true"))
/// }
/// ```
///
/// Linux only (``isAvailable``): there the tests run in the test binary itself, which takes
/// Swift Testing's own options; elsewhere a test runner loads them.
public enum ChildTestRun {
    /// The variable that marks the child, its value the filter it was started with.
    private static let marker = "KRINGLE_CHILD_TEST_RUN"

    /// Whether a test can run itself in a child process here.
    public static let isAvailable: Bool = {
        #if os(Linux)
        FileManager.default.isExecutableFile(atPath: "/usr/bin/env")
        #else
        false
        #endif
    }()

    /// Whether this process is a child started by ``run(_:setting:unsetting:)`` for the test
    /// whose filter contains `name`.
    public static func isChild(_ name: String) -> Bool {
        ProcessInfo.processInfo.environment[marker]?.contains(name) == true
    }

    /// Runs the tests `filter` selects (Swift Testing's `--filter`, such as
    /// `"ProxyEnvironmentTests/readsTheProcessEnvironment"`) in a child process whose
    /// environment is this one's with `unsetting` removed and `setting` set, and returns
    /// what the child printed (standard error included) and how it ended. It waits for the
    /// child on a thread of its own (``onOwnThread(_:)``): the child is this whole test binary
    /// starting again, which takes seconds under ThreadSanitizer.
    ///
    /// - Throws: ``Unavailable`` off Linux, `ChildProcessError` when the child cannot be
    ///   started.
    public static func run(
        _ filter: String, setting: [String: String], unsetting: [String] = []
    ) async throws -> ChildProcess.Outcome {
        let executable = try resolvedExecutable()
        // env(1) changes the environment: ChildProcess passes on this process's own.
        let changes =
            unsetting.flatMap { ["-u", $0] }
            + (setting.merging([marker: filter]) { $1 }).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return try await onOwnThread {
            try ChildProcess.run(
                "/usr/bin/env", changes + [executable, "--testing-library", "swift-testing", "--filter", filter],
                includingStandardError: true, killAfter: 600)
        }
    }

    /// The test binary's path.
    private static func resolvedExecutable() throws -> String {
        guard isAvailable, let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        else { throw Unavailable() }
        return path
    }

    /// This platform cannot run a test in a child process (see ``isAvailable``).
    public struct Unavailable: Error, CustomStringConvertible {
        /// Says so.
        public var description: String { "this platform cannot run a test in a child process" }
    }
}
