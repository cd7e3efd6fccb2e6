import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A program started in a process group of its own with `posix_spawn`, for Kringle's tests and
/// benchmarks (this target is not a product).
///
/// Why not Foundation's `Process`: on Linux its `run()` (swift-corelibs-foundation as shipped
/// with Swift 6.3) lists `/proc/self/fd` and copies each entry's whole 256-byte `d_name`,
/// reading past the end of the entry; when that entry ends a mapped page the test process dies
/// of SIGSEGV (seen once in about ten full test runs; fixed upstream in
/// swift-corelibs-foundation#5472).
///
/// The child inherits the environment, reads `input` (or `/dev/null`) as standard input,
/// writes to `output` (or this process's own standard output), and holds no other descriptor
/// of this process. Call ``waitForExit()``
/// from one thread; ``terminate(with:)`` and ``isRunning`` may come from any.
public final class ChildProcess:
    // `reapedStatus` is only read or written with `lock` held.
    @unchecked Sendable
{
    /// The process identifier, which is also its process group's.
    public let identifier: pid_t
    /// Guards `reapedStatus`. An `NSLock` (a pthread mutex), not Synchronization's `Mutex`,
    /// which waits on raw futexes that ThreadSanitizer cannot see: it reported the status
    /// written by `waitForExit()` and read by `terminate(with:)` as a race.
    private let lock = NSLock()
    /// The wait status once the child has been reaped.
    private var reapedStatus: Int32?

    /// Starts `executable` (an absolute path) with `arguments`.
    /// - Parameters:
    ///   - input: what the child reads as standard input; nil gives it `/dev/null`.
    ///   - output: where the child's standard output goes; nil keeps this process's.
    ///   - includingStandardError: sends standard error to `output` too.
    /// - Throws: ``ChildProcessError`` when the program cannot be started.
    public init(
        _ executable: String, _ arguments: [String], input: Int32? = nil, output: Int32? = nil,
        includingStandardError: Bool = false
    ) throws {
        var actions = try SpawnFileActions()
        defer { actions.destroy() }
        if let input {
            try actions.duplicate(input, to: STDIN_FILENO)
        } else {
            try actions.readNothing()
        }
        if let output {
            try actions.duplicate(output, to: STDOUT_FILENO)
            if includingStandardError { try actions.duplicate(output, to: STDERR_FILENO) }
        }
        try actions.closeEveryOtherDescriptor()
        var attributes = try SpawnAttributes()
        defer { attributes.destroy() }
        try attributes.startNewProcessGroup()

        let argv = CStringArray([executable] + arguments)
        let envp = CStringArray(ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" })
        defer { argv.deallocate(); envp.deallocate() }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions.raw, &attributes.raw, argv.pointers, envp.pointers)
        guard result == 0 else { throw ChildProcessError("cannot start \(executable)", code: result) }
        identifier = pid
    }

    /// Sends `signal` to the child's whole process group (a shell and what it started),
    /// unless the child has been reaped already.
    public func terminate(with signal: Int32 = SIGTERM) {
        // Under the lock, so that a reaped child's identifier (which the system may reuse)
        // is never signalled.
        lock.withLock {
            if reapedStatus == nil { _ = kill(-identifier, signal) }
        }
    }

    /// Whether the child has not exited yet (it is reaped when it has).
    public var isRunning: Bool {
        lock.withLock {
            if reapedStatus != nil { return false }
            var waitStatus: Int32 = 0
            guard waitpid(identifier, &waitStatus, WNOHANG) == identifier else { return true }
            reapedStatus = waitStatus
            return false
        }
    }

    /// Waits for the child to exit and returns its exit code, or 128 plus the signal that
    /// ended it, as a shell reports it.
    @discardableResult
    public func waitForExit() -> Int32 {
        if let status = lock.withLock({ reapedStatus }) { return Self.exitCode(of: status) }
        var waitStatus: Int32 = 0
        // Not under the lock: `terminate(with:)` must be able to end a child that hangs.
        while waitpid(identifier, &waitStatus, 0) == -1 && errno == EINTR {}
        lock.withLock { reapedStatus = waitStatus }
        return Self.exitCode(of: waitStatus)
    }

    /// Decodes a `waitpid` status (the `WIFEXITED` family of macros is not visible to Swift).
    private static func exitCode(of status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
