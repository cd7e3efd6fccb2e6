import ChildProcess
import Foundation
import Kringle
import KringleURLSession
import NginxTestServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The streamed-body benchmarks: 1 GiB from nginx on loopback read chunk by chunk through
/// `client.stream`, by a reader that sleeps 1 ms per chunk (the network is far faster, so
/// the transport must hold the transfer back) and by one that does not (throughput). Each
/// case runs in a child process of its own, which reports its peak RSS growth over its RSS
/// just before the request; the bound to show is under 64 MB for the 1 GiB body.
func runStreamBenchmarks() throws {
    let size: Int64 = 1 << 30
    let pause: useconds_t = 1000
    let bound = 64.0
    print("## Streamed bodies (1 GiB over loopback from nginx, each case in its own process, run once)\n")
    guard let nginx = nginxServingSparseFile(size: size) else { return }
    defer { nginx.stop() }
    let url = nginx.url.absoluteString

    let cases: [(name: String, arguments: [String])] = [
        ("curl, for try await, 1 ms per chunk", ["curl", "async", "\(pause)"]),
        ("urlsession, for try await, 1 ms per chunk", ["urlsession", "async", "\(pause)"]),
        ("curl, onChunk, 1 ms per chunk", ["curl", "promise", "\(pause)"]),
        ("curl, for try await, no sleep", ["curl", "async", "0"]),
        ("urlsession, for try await, no sleep", ["urlsession", "async", "0"]),
    ]
    print(
        "A reader that sleeps 1 ms per chunk of 16 KB or so takes 65,536 chunks × 1 ms: over a minute "
            + "per 1 GiB, as expected. RSS in MB of 10^6 bytes; growth is the peak during the request "
            + "(VmHWM, reset just before it) minus the RSS just before it.\n")
    let table = Table(
        "case", "bytes", "time", "throughput", "chunks", "mean chunk", "RSS before", "peak growth", "target", "result")
    var failures: [String] = []
    for item in cases {
        let run = try measureStreamChild(item.arguments + [url])
        let growth = run.peakBytes - run.baselineBytes
        let complete = run.bytes == size
        let passed = complete && Double(growth) / 1e6 < bound
        if !passed { failures.append(item.name) }
        let bytes = complete ? "\(run.bytes)" : "\(run.bytes) ≠ \(size)"
        let meanChunk = Double(run.bytes) / Double(max(run.chunks, 1)) / 1e3
        table.row(
            item.name, bytes, String(format: "%.1f s", run.seconds),
            String(format: "%.0f MB/s", Double(run.bytes) / run.seconds / 1e6), "\(run.chunks)",
            String(format: "%.1f KB", meanChunk), megabytes(run.baselineBytes), megabytes(growth),
            String(format: "< %.0f MB", bound), passed ? "PASS" : "FAIL")
    }
    print(failures.isEmpty ? "\nEvery case stayed within the bound.\n" : "\nFailed: \(failures)\n")
}

/// What one streamed child reported.
private struct StreamRun {
    var bytes: Int64
    var chunks: Int
    var seconds: Double
    var baselineBytes: Int64
    var peakBytes: Int64
}

private func measureStreamChild(_ arguments: [String]) throws -> StreamRun {
    let child = try ChildProcess.run(CommandLine.arguments[0], ["stream-child"] + arguments, killAfter: 300)
    let fields = child.text.split(whereSeparator: \.isWhitespace).map(String.init)
    guard child.status == 0, fields.count == 5, let bytes = Int64(fields[0]), let chunks = Int(fields[1]),
        let seconds = Double(fields[2]), let baseline = Int64(fields[3]), let peak = Int64(fields[4])
    else {
        throw NginxError("the child \(arguments) failed (status \(child.status)): \(child.text)")
    }
    return StreamRun(bytes: bytes, chunks: chunks, seconds: seconds, baselineBytes: baseline, peakBytes: peak)
}

/// One streamed download, run as `kringle-benchmarks stream-child <curl|urlsession>
/// <async|promise> <microseconds to sleep per chunk> <url>`; prints the bytes and chunks
/// read, the seconds taken, the RSS just before the request and the peak RSS during it
/// (bytes).
func runStreamChild(_ arguments: [String]) throws {
    guard arguments.count == 4, let pause = useconds_t(arguments[2]), let url = URL(string: arguments[3]) else {
        throw NginxError("usage: stream-child <curl|urlsession> <async|promise> <microseconds> <url>")
    }
    let transport: any Transport = arguments[0] == "curl" ? CurlTransport() : URLSessionTransport()
    let client = NetworkClient(transport: transport)
    let endpoint = BenchmarkEndpoint(baseURL: url, path: "")
    let counts = Locked(ChunkCount())
    let count: @Sendable (Data) -> Void = { chunk in
        counts.update {
            $0.bytes += Int64(chunk.count)
            $0.chunks += 1
        }
        if pause > 0 { usleep(pause) }
    }

    let baseline = MemoryStatus.resetPeak()
    let failure = Locked<(any Error)?>(nil)
    let timing = Timing.of {
        if arguments[1] == "promise" {
            do { _ = try client.stream(endpoint, onChunk: count).wait() } catch { failure.set(error) }
            return
        }
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                for try await chunk in client.stream(endpoint) { count(chunk) }
            } catch {
                failure.set(error)
            }
            done.signal()
        }
        done.wait()
    }
    let peak = MemoryStatus.read().peak
    if let error = failure.get() { throw error }
    let total = counts.get()
    print(total.bytes, total.chunks, timing.wall, baseline, peak)
}

private struct ChunkCount {
    var bytes: Int64 = 0
    var chunks = 0
}

/// This process's resident set from `/proc/self/status` (Linux), in bytes; elsewhere both
/// figures are the lifetime peak that `getrusage` gives.
enum MemoryStatus {
    /// `VmRSS` (now) and `VmHWM` (the peak since the start, or since the last reset).
    static func read() -> (current: Int64, peak: Int64) {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int64 {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else {
                return Int64(peakResidentMegabytes() * 1_048_576)
            }
            return (Int64(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// Resets the peak to the RSS now (`echo 5 > /proc/self/clear_refs`, Linux 4.0 and
    /// later) and returns the RSS now. Where that fails, the peak stays the process's
    /// lifetime peak, which can only overstate the growth.
    static func resetPeak() -> Int64 {
        if let clear = FileHandle(forWritingAtPath: "/proc/self/clear_refs") {
            try? clear.write(contentsOf: Data("5".utf8))
            try? clear.close()
        }
        return read().current
    }
}

private func megabytes(_ bytes: Int64) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }
