import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension ChildProcess {
    /// What a program printed and how it ended.
    public struct Outcome: Sendable {
        /// Its exit code, or 128 plus the signal that ended it.
        public var status: Int32
        /// What it wrote to standard output (and standard error, when asked for).
        public var output: Data
        /// Whether it was killed for running longer than allowed.
        public var timedOut: Bool

        /// ``output`` as UTF-8 text.
        public var text: String { String(decoding: output, as: UTF8.self) }
    }

    /// Runs `executable` with `arguments` to the end and returns what it printed.
    ///
    /// ```swift
    /// let curl = try ChildProcess.run("/usr/bin/curl", ["--silent", url.absoluteString])
    /// #expect(curl.status == 0)
    /// ```
    /// - Parameters:
    ///   - includingStandardError: captures standard error too (else it goes to this process's).
    ///   - seconds: kills the program's whole process group after this long.
    /// - Throws: ``ChildProcessError`` when the program cannot be started.
    public static func run(
        _ executable: String, _ arguments: [String], includingStandardError: Bool = false,
        killAfter seconds: Double = 60
    ) throws -> Outcome {
        let pipe = try PipeEnds()
        let child: ChildProcess
        do {
            defer { close(pipe.writing) }
            child = try ChildProcess(
                executable, arguments, output: pipe.writing,
                includingStandardError: includingStandardError)
        } catch {
            close(pipe.reading)
            throw error
        }
        let timedOut = Atomic(false)
        let watchdog = DispatchWorkItem {
            timedOut.store(true, ordering: .relaxed)
            child.terminate(with: SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: watchdog)
        let output = readToEnd(pipe.reading)
        let status = child.waitForExit()
        watchdog.cancel()
        return Outcome(status: status, output: output, timedOut: timedOut.load(ordering: .relaxed))
    }

    /// Reads `descriptor` until every writer has closed it, then closes it.
    private static func readToEnd(_ descriptor: Int32) -> Data {
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[..<count])
            } else if count == 0 || errno != EINTR {
                return data
            }
        }
    }

    /// The two ends of a pipe, both closed on exec, so that a child gets one only as the
    /// standard input or output it is given (``ChildProcess`` closes every other descriptor
    /// in its children too).
    struct PipeEnds {
        let reading: Int32
        let writing: Int32

        init() throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw ChildProcessError("pipe", code: errno) }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            reading = ends[0]
            writing = ends[1]
        }
    }
}
