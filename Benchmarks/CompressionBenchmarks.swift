import ChildProcess
import Foundation
import Kringle
import KringleTesting
import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Request-body compression: Kringle's deflater against the `gzip` command line at levels 1
/// and 6 on the same 32 MiB of JSON log records, in the same run; then a 1 MB JSON body
/// POSTed to a LoopbackServer compressed and not, on both transports.
func runCompressionBenchmarks() throws {
    print("## Compressing request bodies\n")
    guard case .success = Zlib.load() else {
        print("Skipped: zlib cannot be loaded\n")
        return
    }
    print("zlib \(Zlib.version ?? "?") from \(Zlib.libraryName ?? "?")\n")
    try runDeflaterThroughput()
    try runCompressedPostTimes()
}

/// Throughput in MB/s of input, medians of 5 rounds taken alternately. Kringle's side is a
/// POST of a `Data` body through `NetworkClient` with a `StubTransport`: the compression as a
/// user gets it, plus the client's per-request work (negligible next to 32 MiB). `gzip`'s
/// side reads the same bytes from a file (in the page cache) and writes to /dev/null.
private func runDeflaterThroughput() throws {
    let size = 32 << 20
    let data = jsonLogRecords(byteCount: size)
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("kringle-compression-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    let file = work.appendingPathComponent("records.ndjson")
    try data.write(to: file)

    let sent = Locked(0)
    let stub = StubTransport()
    stub.stub { request in
        sent.set(request.body?.count ?? 0)
        return .init(status: 204)
    }
    let client = NetworkClient(transport: stub)
    let url = URL(string: "https://ingest.example/v1/logs")!
    print("### Throughput on 32 MiB of NDJSON log records (MB/s of input, medians of 5 rounds)\n")
    let table = Table(
        "level", "Kringle (Deflater via NetworkClient)", "gzip CLI", "Kringle / gzip", "ratio, Kringle", "ratio, gzip")
    for level in [1, 6] {
        let endpoint = CompressedBenchmarkEndpoint(
            baseURL: url, path: "", compression: RequestCompression(.gzip, level: level))
        let command = "gzip -\(level) -c '\(file.path)' > /dev/null"
        let timings = try Timing.compare(
            baseline: { _ = try timeCommand("/bin/sh", ["-c", command]) },
            candidate: {
                _ = try client.post(.data(data, contentType: "application/x-ndjson"), to: endpoint).wait()
            })
        let gzipSize = try ChildProcess.run("/bin/sh", ["-c", "gzip -\(level) -c '\(file.path)' | wc -c"]).text
        let gzipBytes = Double(gzipSize.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
        let ours = Double(size) / timings.candidate.wall / 1e6
        let theirs = Double(size) / timings.baseline.wall / 1e6
        table.row(
            "\(level)", String(format: "%.0f MB/s", ours), String(format: "%.0f MB/s", theirs),
            String(format: "%.2f×", ours / theirs), String(format: "%.1f : 1", Double(size) / Double(sent.get())),
            String(format: "%.1f : 1", Double(size) / gzipBytes))
    }
    print("")
}

/// A 1 MB JSON array POSTed to a LoopbackServer that answers 204, plain against gzip
/// (level 6), each timed over 10 requests in a row, medians of 9 rounds taken alternately.
private func runCompressedPostTimes() throws {
    let body = jsonArrayBody(byteCount: 1_000_000)
    let arrived = Locked((bytes: 0, coding: ""))
    let server = try LoopbackServer { request in
        let coding = request.headers.first { $0.name.lowercased() == "content-encoding" }?.value ?? "none"
        arrived.set((request.body.count, coding))
        return .status(204)
    }
    defer { server.shutdown() }
    let requests = 10
    print(
        "### A 1 MB JSON body POSTed over loopback (LoopbackServer answers 204; ms per request, medians of 9 rounds of \(requests))\n"
    )
    let table = Table(
        "transport", "uncompressed", "gzip level 6", "bytes sent, plain", "bytes sent, gzip", "gzip / plain")
    for name in ["curl", "urlsession"] {
        let transport: any Transport = name == "curl" ? CurlTransport() : URLSessionTransport()
        let client = NetworkClient(transport: transport)
        let plain = CompressedBenchmarkEndpoint(baseURL: server.baseURL, path: "/ingest", compression: nil)
        let gzip = CompressedBenchmarkEndpoint(baseURL: server.baseURL, path: "/ingest", compression: .gzip)
        func post(to endpoint: CompressedBenchmarkEndpoint) throws {
            for _ in 0..<requests {
                try client.post(.data(body, contentType: "application/json"), to: endpoint).wait()
            }
        }
        try post(to: plain)
        let plainBytes = arrived.get()
        try post(to: gzip)
        let gzipBytes = arrived.get()
        guard plainBytes.coding == "none", gzipBytes.coding == "gzip" else {
            throw CompressionBenchmarkFailure("the server saw \(plainBytes) and \(gzipBytes)")
        }
        let timings = try Timing.compare(
            rounds: 9, baseline: { try post(to: plain) }, candidate: { try post(to: gzip) })
        let plainMilliseconds = timings.baseline.wall / Double(requests) * 1000
        let gzipMilliseconds = timings.candidate.wall / Double(requests) * 1000
        table.row(
            name, String(format: "%.2f ms", plainMilliseconds), String(format: "%.2f ms", gzipMilliseconds),
            "\(plainBytes.bytes)", "\(gzipBytes.bytes)", String(format: "%.2f×", gzipMilliseconds / plainMilliseconds))
    }
    print(
        "\nOver loopback bandwidth is free, so compression only costs; it pays where the link is slower than zlib (tens of MB/s at level 6).\n"
    )
}
