import ChildProcess
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Reproduce with:
//
//     swift build -c release --product kringle-benchmarks
//     swift run -c release kringle-benchmarks websockets [COUNT]     # COUNT defaults to 1000
//
// Needs python3 with websockets (pip install websockets; 17.4 was measured).

/// `kringle-benchmarks websockets [COUNT]`: COUNT WebSocket connections at once from one
/// process to one local echo server, Kringle's client against Python's websockets client.
///
/// The server is `Benchmarks/websocket_echo.py serve` (websockets' asyncio server, one
/// thread, permessage-deflate on), a child process that both clients share. Each client runs
/// in a fresh process of its own, so that its resident memory before the connections is its
/// own: `kringle-benchmarks websockets-child` (``WebSocketBenchmark/runClient(_:)``,
/// `NetworkClient()` on its default transport, `CurlTransport` on Linux) and
/// `websocket_echo.py measure`. Both do the same steps:
///
/// 1. open one connection; 200 echoes of 32 bytes of text unmeasured, then 2,000 timed one
///    after the other (send, then receive the echo): median and p99 round trip, alone;
/// 2. read `VmRSS` and the open descriptors; open COUNT − 1 more connections, 100 at a time,
///    each with one echo to prove it open; leave them idle for 2 s; read both again: the
///    growth divided by COUNT − 1 is the memory per idle connection;
/// 3. the echoes of step 1 again on the first connection, with the others open and idle;
/// 4. close all COUNT at once, timed.
///
/// Run once with compression not offered and once offered (the server takes the offer).
enum WebSocketBenchmark {
    /// Connections opened at once.
    static let batch = 100
    /// Unmeasured echoes before the timed ones.
    static let warmUp = 200
    /// Timed echoes.
    static let echoes = 2_000
    /// How long the connections sit idle before memory is read.
    static let idleSeconds = 2.0
    /// How long a batch of connections may take to open (and echo once) before the client
    /// is reported as hung.
    static let batchSeconds = 60.0

    /// The Python script, beside this file in the package.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("websocket_echo.py").path

    /// What one client's process reports, as JSON on its last line (the Python script prints
    /// the same keys).
    struct Measurement: Codable {
        /// A median and p99, in microseconds.
        struct RoundTrips: Codable {
            var median: Double
            var p99: Double
        }

        var opened: Int
        var failures: Int
        var firstFailure: String?
        var compressed: Bool
        var residentBeforeKB: Int
        var residentAfterKB: Int
        var descriptorsBefore: Int
        var descriptorsAfter: Int
        var openSeconds: Double
        var closeSeconds: Double
        /// Echoes on the first connection alone, and with the others idle (`await` for
        /// Kringle, `await` in asyncio for Python).
        var alone: RoundTrips
        var loaded: RoundTrips
        /// Kringle only: the same echoes with `wait()` from a thread.
        var aloneWaiting: RoundTrips?
        var loadedWaiting: RoundTrips?

        /// The growth of `VmRSS` per connection opened after the first, in KiB.
        var kibPerIdleConnection: Double {
            Double(residentAfterKB - residentBeforeKB) / Double(max(1, opened - 1))
        }
    }

    /// Text of exactly 32 bytes, different for every `number` below 10^10.
    static func message(_ number: Int) -> String {
        "echo " + String(format: "%010d", number) + " kringle-bench..."
    }

    /// Raises this process's soft limit on open descriptors to its hard limit (children
    /// inherit it); returns the soft limit now in force.
    @discardableResult
    static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(resource, &limit)
        _ = getrlimit(resource, &limit)
        return Int(clamping: limit.rlim_cur)
    }
}

extension WebSocketBenchmark {
    /// Runs the benchmark: `arguments` is `[COUNT]`.
    static func run(_ arguments: [String]) throws {
        let count = max(2, arguments.first.flatMap(Int.init) ?? 1_000)
        let limit = raiseDescriptorLimit()
        guard let python = executable("python3"),
            (try? ChildProcess.run(python, ["-c", "import websockets"]))?.status == 0
        else {
            print("websockets skipped: no python3 with websockets on PATH (pip install websockets)\n")
            return
        }
        let version =
            (try? ChildProcess.run(python, ["-c", "import websockets; print(websockets.__version__)"]))?
            .text.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        if limit < count + 64 {
            print("websockets: only \(limit) descriptors allowed (ulimit -Hn); \(count) connections may fail\n")
        }
        let server = try EchoServer.start(python: python)
        defer { server.stop() }

        print(
            "## WebSockets: \(count) connections at once from one process to one local echo server "
                + "(Python websockets \(version), asyncio, permessage-deflate on), Kringle's client against "
                + "Python websockets' asyncio client, each in a fresh process\n")
        for offered in [false, true] {
            let flag = offered ? "on" : "off"
            let kringle = measure(
                "Kringle", CommandLine.arguments[0], ["websockets-child", "\(server.port)", "\(count)", flag])
            let pythonSide = measure(
                "Python", python, [script, "measure", "\(server.port)", "\(count)", "--compression", flag])
            printTable(
                offered ? "permessage-deflate offered" : "compression not offered", count: count, kringle, pythonSide)
        }
        print(
            "Memory per idle connection: growth of VmRSS over COUNT − 1 connections opened after the first, "
                + "2 s idle. Echo: 32 bytes of text sent, its echo received, one after the other on one "
                + "connection, \(echoes) timed after \(warmUp); µs. "
                + "Kringle's echoes `await` send and receive (as asyncio does); the wait() rows block a thread "
                + "on each promise instead. Both clients share the one server (a single Python thread).\n")
    }

    /// Runs one side's process and reads its report; nil (after printing why) when it failed.
    static func measure(_ side: String, _ executable: String, _ arguments: [String]) -> Measurement? {
        let outcome: ChildProcess.Outcome
        do {
            outcome = try ChildProcess.run(executable, arguments, includingStandardError: true, killAfter: 600)
        } catch {
            print("\(side): cannot start \(executable): \(error)\n")
            return nil
        }
        let lines = outcome.text.split(separator: "\n")
        let report = lines.last(where: { $0.hasPrefix("{") }).flatMap {
            try? JSONDecoder().decode(Measurement.self, from: Data($0.utf8))
        }
        let others = lines.filter { !$0.hasPrefix("{") }
        if outcome.status != 0 || report == nil || !others.isEmpty {
            let how = outcome.timedOut ? "killed after 600 s" : "exit status \(outcome.status)"
            print("\(side) (\(how)) said:\n```\n\(others.suffix(40).joined(separator: "\n"))\n```\n")
        }
        return report
    }

    /// One table: Kringle's figures, Python's, and their ratio.
    static func printTable(_ title: String, count: Int, _ kringle: Measurement?, _ python: Measurement?) {
        print("### \(title)\n")
        let table = Table("", "Kringle", "Python websockets", "Kringle / Python")
        func row(_ name: String, _ value: (Measurement) -> Double?, _ format: String) {
            let left = kringle.flatMap(value)
            let right = python.flatMap(value)
            let ratio = left.flatMap { left in right.map { right in String(format: "%.2fx", left / right) } }
            table.row(
                name, left.map { String(format: format, $0) } ?? "—", right.map { String(format: format, $0) } ?? "—",
                ratio ?? "—")
        }
        func text(_ name: String, _ value: (Measurement) -> String) {
            table.row(name, kringle.map(value) ?? "failed", python.map(value) ?? "failed", "")
        }
        text("connections open (failed)") { "\($0.opened) of \(count) (\($0.failures))" }
        text("permessage-deflate in use") { $0.compressed ? "yes" : "no" }
        row("memory per idle connection (KiB)", { $0.kibPerIdleConnection }, "%.1f")
        text("VmRSS before → after (MiB)") {
            String(format: "%.1f → %.1f", Double($0.residentBeforeKB) / 1024, Double($0.residentAfterKB) / 1024)
        }
        text("descriptors before → after") { "\($0.descriptorsBefore) → \($0.descriptorsAfter)" }
        row("open \(count - 1), \(batch) at a time, one echo each (ms)", { $0.openSeconds * 1000 }, "%.0f")
        row("echo alone: median (µs)", { $0.alone.median }, "%.0f")
        row("echo alone: p99 (µs)", { $0.alone.p99 }, "%.0f")
        row("echo beside \(count - 1) idle: median (µs)", { $0.loaded.median }, "%.0f")
        row("echo beside \(count - 1) idle: p99 (µs)", { $0.loaded.p99 }, "%.0f")
        row("echo alone, wait(): median (µs)", { $0.aloneWaiting?.median }, "%.0f")
        row("echo alone, wait(): p99 (µs)", { $0.aloneWaiting?.p99 }, "%.0f")
        row("echo beside \(count - 1) idle, wait(): median (µs)", { $0.loadedWaiting?.median }, "%.0f")
        row("echo beside \(count - 1) idle, wait(): p99 (µs)", { $0.loadedWaiting?.p99 }, "%.0f")
        row("close all \(count) at once (ms)", { $0.closeSeconds * 1000 }, "%.0f")
        for (side, measurement) in [("Kringle", kringle), ("Python", python)] {
            if let failure = measurement?.firstFailure { print("\n\(side)'s first failure: \(failure)") }
        }
        print("")
    }

    /// Why a step of the benchmark could not go on.
    struct Failure: Error, CustomStringConvertible {
        var description: String

        init(_ description: String) {
            self.description = description
        }
    }

    /// The first `name` on `PATH`: `ChildProcess` takes an absolute path.
    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first(where: FileManager.default.isExecutableFile)
    }

    /// `websocket_echo.py serve`: the echo server, which also ends when this process does.
    final class EchoServer: Sendable {
        let port: Int
        private let process: ChildProcess

        private init(port: Int, process: ChildProcess) {
            self.port = port
            self.process = process
        }

        /// Starts the server (permessage-deflate on) and reads the port it printed.
        static func start(python: String) throws -> EchoServer {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw Failure("pipe failed") }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            defer { close(ends[0]) }
            let process: ChildProcess
            do {
                defer { close(ends[1]) }
                process = try ChildProcess(python, [script, "serve", "--compression", "on"], output: ends[1])
            }
            let words = ChaosProxy.readLine(from: ends[0], seconds: 20).split(separator: " ")
            guard words.count == 2, words[0] == "listening", let port = Int(words[1]) else {
                process.terminate()
                process.waitForExit()
                throw Failure("\(script) serve did not print its port")
            }
            return EchoServer(port: port, process: process)
        }

        /// Stops the server (SIGTERM) and waits for it.
        func stop() {
            process.terminate()
            process.waitForExit()
        }
    }
}
