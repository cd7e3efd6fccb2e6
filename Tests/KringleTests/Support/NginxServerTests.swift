import ChildProcess
import Foundation
import KringleTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// nginx goes with the process that started it (issue 41, item 9): a benchmark killed by a
/// time limit, or a test process that crashed, must not leave nginx serving.
@Suite("NginxServer", .requires(.nginx), .timeLimit(.minutes(3)))
struct NginxServerTests {
    /// Whether `kringle-benchmarks` can run in this build: it counts allocations by
    /// replacing `malloc`, as ThreadSanitizer's runtime does, and a TSan build of it crashes
    /// at start (`Scripts/tsan.sh` compiles with `-DKRINGLE_TSAN`).
    private static var benchmarksCanRun: Bool {
        #if KRINGLE_TSAN
        false
        #else
        true
        #endif
    }

    @Test(.enabled(if: benchmarksCanRun, "kringle-benchmarks cannot run under ThreadSanitizer (both replace malloc)"))
    func nginxStopsWhenTheProcessThatStartedItIsKilled() async throws {
        let benchmarks = try Self.builtProduct("kringle-benchmarks")
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // `kringle-benchmarks nginx-child` starts an NginxServer, prints nginx's process
        // identifier and waits to be killed.
        let starter = try ChildProcess(benchmarks, ["nginx-child"], output: ends[1])
        close(ends[1])
        let printed = await Self.firstLine(of: ends[0])
        let group = try #require(pid_t(printed), "the starter printed no process identifier: \(printed)")
        defer {
            // Whatever happens, nothing is left behind.
            if Self.hasLivingMember(group) { kill(-group, SIGKILL) }
        }
        #expect(Self.hasLivingMember(group), "nginx is not running")

        starter.terminate(with: SIGKILL)  // the starter's own process group: nginx has its own
        #expect(starter.waitForExit() == 128 + SIGKILL)

        // Polled: nginx stops on a signal from a process of its own, whenever that runs.
        #expect(
            await eventually(within: 60) { !Self.hasLivingMember(group) },
            "nginx (process group \(group)) outlived the process that started it")
    }

    /// A program of this package, next to the test bundle in the build directory.
    private static func builtProduct(_ name: String) throws -> String {
        #if os(macOS)
        let bundle = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") } ?? Bundle.main
        let directory = bundle.bundleURL.deletingLastPathComponent()
        #else
        let directory = Bundle.main.bundleURL
        #endif
        let path = directory.appendingPathComponent(name).path
        try #require(FileManager.default.isExecutableFile(atPath: path), "\(path) is not built")
        return path
    }

    /// The first line written to `descriptor`, read on a thread of its own (the read blocks),
    /// then `descriptor` closed; what came before the end if there was no line.
    private static func firstLine(of descriptor: Int32) async -> String {
        await onOwnThread {
            defer { close(descriptor) }
            var line = Data()
            var byte: UInt8 = 0
            while read(descriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
            return String(decoding: line, as: UTF8.self)
        }
    }

    /// Whether a process of `group` is alive: one that has not exited (a zombie waiting for a
    /// parent that never reaps it has).
    private static func hasLivingMember(_ group: pid_t) -> Bool {
        #if os(Linux)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.contains { entry in
            guard Int32(entry) != nil,
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { return false }
            // "pid (comm) state ppid pgrp …": the name may hold spaces and parentheses.
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            return fields.count > 2 && fields[0] != "Z" && Int32(fields[2]) == group
        }
        #else
        return kill(-group, 0) == 0
        #endif
    }
}
