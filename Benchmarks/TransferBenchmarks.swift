import ChildProcess
import Foundation
import Kringle
import KringleURLSession
import NginxTestServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The large-body benchmarks: download 1 GB from nginx on loopback into a file, and upload
/// 1 GB from a file, through both transports and through the `curl` command line doing the
/// same in the same run. Each Kringle case runs in a child process of its own, so that its
/// peak RSS is its own.
func runTransferBenchmarks() throws {
    print("## Large bodies (1 GiB over loopback from and to nginx, each case in its own process)\n")
    let size: Int64 = 1 << 30
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("kringle-transfers-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    let source = work.appendingPathComponent("upload.bin")
    try makeSparseFile(source, size: size)

    guard let nginx = nginxServingSparseFile(size: size) else { return }
    defer { nginx.stop() }
    let downloadURL = nginx.url
    let uploadURL = downloadURL.deletingLastPathComponent().appendingPathComponent("uploads/received.bin")
    let destination = work.appendingPathComponent("downloaded.bin")

    var cases: [(name: String, direction: String, run: () throws -> Run)] = [
        (
            "curl CLI download", "download",
            {
                Run(
                    seconds: try timeCommand(
                        "/usr/bin/curl", ["-s", "-o", destination.path, downloadURL.absoluteString]))
            }
        ),
        (
            "curl CLI upload", "upload",
            {
                Run(
                    seconds: try timeCommand(
                        "/usr/bin/curl", ["-s", "-o", "/dev/null", "-T", source.path, uploadURL.absoluteString]))
            }
        ),
    ]
    for transport in ["urlsession", "curl"] {
        cases.append(
            (
                "\(transport) download", "download",
                {
                    try runChild([
                        "transfer-child", "download", transport, downloadURL.absoluteString, destination.path,
                    ])
                }
            ))
        cases.append(
            (
                "\(transport) upload", "upload",
                {
                    try runChild(["transfer-child", "upload", transport, uploadURL.absoluteString, source.path])
                }
            ))
    }

    // Each case writes 1 GiB, and the kernel makes a writer wait while earlier cases' dirty
    // pages go to disk; so every case starts after `sync`, and the cases take turns.
    let rounds = 3
    var runs: [String: [Run]] = [:]
    for _ in 0..<rounds {
        for item in cases {
            try flushDirtyPages()
            runs[item.name, default: []].append(try item.run())
        }
    }

    let table = Table("case", "time", "throughput", "peak RSS", "vs curl CLI", "target")
    for direction in ["download", "upload"] {
        let reference = Run.median(runs["curl CLI \(direction)"] ?? []).seconds
        for item in cases where item.direction == direction {
            let all = runs[item.name] ?? []
            let median = Run.median(all).seconds
            let peak = all.compactMap(\.peakMegabytes).max()
            let target =
                item.name.hasPrefix("curl CLI") ? "" : item.name == "curl download" ? "≥ 0.8x, < 64 MB" : "< 64 MB"
            table.row(
                item.name, seconds(median), throughput(size, median), peak.map { String(format: "%.0f MB", $0) } ?? "",
                String(format: "%.2fx", reference / median), target)
        }
    }
    print("\nTimes are medians of \(rounds) rounds; peak RSS is the highest of them. Every round:")
    for item in cases {
        print("- \(item.name): " + (runs[item.name] ?? []).map { seconds($0.seconds) }.joined(separator: ", "))
    }
    print("")
}

/// One timed case: its wall time, and its peak RSS when it ran in a child process.
private struct Run {
    var seconds: Double
    var peakMegabytes: Double?

    static func median(_ runs: [Run]) -> Run {
        runs.sorted { $0.seconds < $1.seconds }[runs.count / 2]
    }
}

/// One Kringle transfer, run as `kringle-benchmarks transfer-child <download|upload>
/// <urlsession|curl> <url> <file>`; prints its seconds and peak RSS.
func runTransferChild(_ arguments: [String]) throws {
    guard arguments.count == 4, let url = URL(string: arguments[2]) else {
        throw NginxError("usage: transfer-child <download|upload> <urlsession|curl> <url> <file>")
    }
    let transport: any Transport = arguments[1] == "curl" ? CurlTransport() : URLSessionTransport()
    let client = NetworkClient(transport: transport)
    let endpoint = BenchmarkEndpoint(baseURL: url, path: "")
    let file = URL(fileURLWithPath: arguments[3])
    let timing = try Timing.of {
        if arguments[0] == "download" {
            _ = try client.download(endpoint, to: file).wait()
        } else {
            _ = try client.upload(file, to: endpoint, method: .put, as: Data.self).wait()
        }
    }
    print(timing.wall, peakResidentMegabytes())
}

private func runChild(_ arguments: [String]) throws -> Run {
    let child = try ChildProcess.run(CommandLine.arguments[0], arguments, killAfter: 600)
    let fields = child.text.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
    guard child.status == 0, fields.count == 2 else {
        throw NginxError("the child \(arguments) failed: \(child.text)")
    }
    return Run(seconds: fields[0], peakMegabytes: fields[1])
}

func timeCommand(_ path: String, _ arguments: [String]) throws -> Double {
    try Timing.of { _ = try ChildProcess(path, arguments).waitForExit() }.wall
}

/// Writes every dirty page to disk (`sync`), so that a case does not pay for the last one's.
private func flushDirtyPages() throws {
    _ = try timeCommand("/usr/bin/sync", [])
}

func makeSparseFile(_ url: URL, size: Int64) throws {
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
        throw NginxError("cannot create \(url.path)")
    }
    let handle = try FileHandle(forWritingTo: url)
    try handle.truncate(atOffset: UInt64(size))
    try handle.close()
}

private func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }

private func throughput(_ bytes: Int64, _ seconds: Double) -> String {
    String(format: "%.0f MB/s", Double(bytes) / seconds / 1_000_000)
}

/// nginx serving a sparse file of `size` bytes at `/big.bin`; `nil`, the reason printed, when
/// it cannot start.
func nginxServingSparseFile(size: Int64) -> NginxServer? {
    let started = NginxServer.start(
        path: "/big.bin", prepare: { try makeSparseFile($0.appendingPathComponent("big.bin"), size: size) })
    switch started {
    case .success(let server):
        return server
    case .failure(let error):
        print("Skipped: \(error)\n")
        return nil
    }
}
