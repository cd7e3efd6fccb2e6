import ChildProcess
import Foundation
import Kringle
import KringleTesting
import KringleURLSession

/// The issue's bound: a 200 MB file uploads gzip-compressed with peak RSS growth under 64 MB
/// on both transports. The file is 200 MB of NDJSON log records (``writeLogFile(_:size:)``).
/// Each transport's upload runs in a child process of its own, which reports its RSS just
/// before the request and its peak during it (`VmHWM`, reset just before); the LoopbackServer
/// receiving it runs here, in the parent, so the body it holds is not counted. What arrived
/// is inflated with the `gzip` tool and compared with the file (`cmp`).
///
/// Prints a PASS or FAIL line and returns the exit status: 0 when both cases pass.
func runCompressedUploadBenchmark(_ arguments: [String]) throws -> Int32 {
    let size: Int64 = 200_000_000
    let bound = 64.0
    print("## A 200 MB file uploaded gzip-compressed (each transport in its own process)\n")
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("kringle-gzip-upload-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    let source = work.appendingPathComponent("records.ndjson")
    try writeLogFile(source, size: size)
    let received = work.appendingPathComponent("received.gz")

    let arrived = Locked((body: Data(), coding: ""))
    let server = try LoopbackServer(configuration: .init(maximumRequestBodySize: 256 << 20)) { request in
        let coding = request.headers.first { $0.name.lowercased() == "content-encoding" }?.value ?? "none"
        arrived.set((request.body, coding))
        return .text("stored")
    }
    defer { server.shutdown() }

    print(
        "RSS in MB of 10^6 bytes; growth is the child's peak during the upload (VmHWM, reset just before it) "
            + "minus its RSS just before it.\n")
    let table = Table(
        "transport", "file", "sent (gzip)", "time", "RSS before", "peak growth", "inflates to the file", "target",
        "result")
    var failures: [String] = []
    for transport in ["curl", "urlsession"] {
        arrived.set((Data(), ""))
        let child = try ChildProcess.run(
            CommandLine.arguments[0],
            ["compressed-upload-child", transport, server.url("/upload").absoluteString, source.path], killAfter: 900)
        let fields = child.text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard child.status == 0, fields.count == 3, let seconds = Double(fields[0]), let baseline = Int64(fields[1]),
            let peak = Int64(fields[2])
        else {
            throw CompressionBenchmarkFailure("the \(transport) child failed (status \(child.status)): \(child.text)")
        }
        let body = arrived.get()
        try body.body.write(to: received)
        let inflated =
            try ChildProcess.run("/bin/sh", ["-c", "gzip -dc '\(received.path)' | cmp -s - '\(source.path)'"]).status
            == 0
        let growth = Double(peak - baseline) / 1e6
        let passed = body.coding == "gzip" && inflated && growth < bound
        if !passed { failures.append(transport) }
        table.row(
            transport, String(format: "%.0f MB", Double(size) / 1e6),
            String(format: "%.1f MB", Double(body.body.count) / 1e6), String(format: "%.1f s", seconds),
            String(format: "%.1f MB", Double(baseline) / 1e6), String(format: "%.1f MB", growth),
            inflated ? "yes" : "no", String(format: "< %.0f MB", bound), passed ? "PASS" : "FAIL")
    }
    print(
        failures.isEmpty
            ? "\nPASS: both transports uploaded 200 MB compressed within 64 MB of peak RSS growth.\n"
            : "\nFAIL: \(failures.joined(separator: ", "))\n")
    return failures.isEmpty ? 0 : 1
}

/// One compressed upload, run as `kringle-benchmarks compressed-upload-child
/// <curl|urlsession> <url> <file>`; prints its seconds, the RSS just before the request and
/// the peak RSS during it (bytes).
func runCompressedUploadChild(_ arguments: [String]) throws {
    guard arguments.count == 3, let url = URL(string: arguments[1]) else {
        throw CompressionBenchmarkFailure("usage: compressed-upload-child <curl|urlsession> <url> <file>")
    }
    let transport: any Transport = arguments[0] == "curl" ? CurlTransport() : URLSessionTransport()
    let client = NetworkClient(transport: transport)
    let endpoint = CompressedBenchmarkEndpoint(baseURL: url, path: "", compression: .gzip)
    let file = URL(fileURLWithPath: arguments[2])
    let baseline = MemoryStatus.resetPeak()
    let timing = try Timing.of {
        _ = try client.upload(file, to: endpoint, method: .post, as: Data.self).wait()
    }
    print(timing.wall, baseline, MemoryStatus.read().peak)
}
