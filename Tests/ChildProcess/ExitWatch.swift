import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Stops a child when this process exits, however it exits: SIGKILL and a crash included.
///
/// A program run in the foreground (nginx with `daemon off`) lives on when the process that
/// started it dies without stopping it: a benchmark killed by a time limit, a test process
/// that crashed. The Python test servers watch their parent themselves
/// (`Tests/KringleTests/Fixtures/parent_exit.py`); a program that cannot gets this watch.
///
/// The watch is a `/bin/sh` of its own whose standard input is a pipe; only this process
/// holds the pipe's writing end. When this process dies, the kernel closes that end, the
/// shell's `read` returns, and the shell sends SIGTERM to the child's process group and
/// removes the paths it was given.
///
/// Why not `PR_SET_PDEATHSIG` (Linux only): it signals the child when the *thread* that
/// started it exits (prctl(2)), and a child started from a Dispatch worker would be stopped
/// when that worker retires, while this process lives on.
///
/// ```swift
/// let nginx = try ChildProcess("/usr/sbin/nginx", arguments)
/// let watch = try ExitWatch(terminating: nginx, removing: [directory.path])
/// …
/// watch.cancel()   // before stopping nginx yourself
/// nginx.terminate()
/// nginx.waitForExit()
/// ```
public final class ExitWatch: Sendable {
    private let shell: ChildProcess
    /// The pipe's writing end, open until ``cancel()`` (or this process's end).
    private let writing: Int32
    private let isCancelled = Atomic(false)

    /// Starts watching: once this process has exited, `child`'s process group gets SIGTERM
    /// and `paths` are removed (`rm -rf`).
    ///
    /// The watch lasts until ``cancel()`` or the end of this process, even if this object is
    /// released first: a child whose owner forgot to stop it still goes with the process.
    ///
    /// - Throws: ``ChildProcessError`` when the pipe or the shell cannot be made.
    public init(terminating child: ChildProcess, removing paths: [String] = []) throws {
        let pipe = try ChildProcess.PipeEnds()
        // `read` returns at the end of input: when the writing end closes, which only this
        // process's exit or `cancel()` does (after killing the shell). `"$1"` is the group.
        let script = #"read -r _; kill -s TERM -- "-$1" 2>/dev/null; shift; [ $# -eq 0 ] || rm -rf -- "$@""#
        do {
            defer { close(pipe.reading) }
            shell = try ChildProcess(
                "/bin/sh", ["-c", script, "exit-watch", String(child.identifier)] + paths, input: pipe.reading)
        } catch {
            close(pipe.writing)
            throw error
        }
        writing = pipe.writing
    }

    /// Ends the watch, leaving the child alone. Call it before stopping and reaping the child
    /// yourself, so that the shell never signals a process group whose number the system may
    /// have given to another by then.
    public func cancel() {
        guard !isCancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Killed before the pipe closes, so that it never gets to its `kill`.
        shell.terminate(with: SIGKILL)
        shell.waitForExit()
        close(writing)
    }
}
