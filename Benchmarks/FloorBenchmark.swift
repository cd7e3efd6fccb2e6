import ChildProcess
import CurlFloor
import Foundation
import Kringle

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `kringle-benchmarks floor`: the client against the physical limit, libcurl driven directly
/// with no Kringle code (``LibcurlFloor``) and the body decoded with `JSONDecoder` on the same
/// thread.
///
/// Over the default transport (`CurlTransport`), one request at a time and 8 in flight, the
/// three ways the README calls the client: `get(…, as:)` with `done`, `wait()` from blocked
/// threads and `await … .value` from tasks. Each style is measured in slices that take turns
/// with libcurl's (the overhead benchmark's method, `Overhead.measure`), so that the ratios
/// compare runs taken within milliseconds of each other. Prints wall and CPU µs per request,
/// context switches and allocations per request, and the CPU and wall ratios against the
/// floor.
///
/// The table is printed twice: with the other core idle, then with a busy loop (a shell in
/// a child process) on it. On a small virtual machine an idle core is slow to wake, so the
/// hand-offs between threads cost more on a quiet machine than on a busy one.
func runFloorBenchmark() throws {
    if let reason = LibcurlFloor.loadFailure {
        print("floor skipped: \(reason)")
        return
    }
    let server = try OverheadServer.start()
    defer { server.stop() }
    try Floor.table(server: server, heading: "the other core idle")
    let spinner = try ChildProcess("/bin/sh", ["-c", "while :; do :; done"])
    defer {
        spinner.terminate(with: SIGKILL)
        _ = spinner.waitForExit()
    }
    try Floor.table(server: server, heading: "a busy loop in another process")
    print(
        "Targets (CPU per request against libcurl alone + JSONDecoder): one at a time ≤ 1.6x, 8 in flight ≤ 1.5x,"
            + " for each of done, wait() and await.\n")
}

enum Floor {
    /// The styles measured, the floor first.
    static let styles: [Overhead.Style] = [.libcurl, .handler, .wait, .await]

    static func table(server: OverheadServer, heading: String) throws {
        print(
            "## The client against libcurl alone over \(server.name), \(heading): \(Overhead.requests) GETs per run,"
                + " medians of \(Overhead.rounds)\n")
        let table = Table(
            "mode", "style", "wall µs/req", "CPU µs/req", "switches/req", "allocs/req", "wall vs floor",
            "CPU vs floor")
        for inFlight in [1, 8] {
            let measured = Overhead.measure(
                transport: CurlTransport(), inFlight: inFlight, server: server, styles: styles)
            for style in styles {
                guard let run = measured.median(style) else { continue }
                let perRequest = { (value: Double) in String(format: "%.1f", value / Double(Overhead.requests)) }
                let failures = run.failures > 0 ? " (\(run.failures) failed)" : ""
                let isFloor = style == .libcurl
                table.row(
                    inFlight == 1 ? "one at a time" : "\(inFlight) in flight", style.rawValue + failures,
                    perRequest(run.wall * 1e6), perRequest(run.cpu * 1e6), perRequest(Double(run.contextSwitches)),
                    perRequest(Double(run.allocations)),
                    isFloor ? "" : measured.ratio(style, to: .libcurl, \.wall),
                    isFloor ? "" : measured.ratio(style, to: .libcurl, \.cpu))
            }
        }
        print("")
    }
}

/// libcurl alone (Benchmarks/CurlFloor): the request the client sends, `count` times, one at
/// a time on one easy handle or `inFlight` at once on a multi handle, each body decoded as the
/// client decodes it.
enum LibcurlFloor {
    /// Why libcurl could not be opened, or `nil` once it is (opened on first use).
    static let loadFailure: String? = {
        var error = [CChar](repeating: 0, count: 512)
        guard cfl_load(&error, error.count) != 1 else { return nil }
        return String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// Sends `request`'s URL and header fields; returns how many requests failed (all of them
    /// when libcurl could not be opened).
    static func run(_ request: HTTPRequest, count: Int, inFlight: Int) -> Int {
        guard loadFailure == nil else { return count }
        let url = request.url.absoluteString
        let lines = request.headers.map { "\($0.name): \($0.value)" }
        let pointers = lines.map { strdup($0) }
        defer { for pointer in pointers { free(pointer) } }
        let constant: [UnsafePointer<CChar>?] = pointers.map { $0.map { UnsafePointer($0) } }
        return constant.withUnsafeBufferPointer { headers in
            let failed =
                inFlight == 1
                ? cfl_sequential(url, headers.baseAddress, Int32(lines.count), Int32(count), decode, nil)
                : cfl_multi(url, headers.baseAddress, Int32(lines.count), Int32(count), Int32(inFlight), decode, nil)
            return Int(failed)
        }
    }

    /// Decodes one body as the client's `get(…, as:)` does: into `Data`, then `JSONDecoder`.
    private static let decode: cfl_body_handler = { bytes, length, _ in
        guard let bytes else { return 0 }
        let body = Data(bytes: bytes, count: length)
        return (try? Overhead.decoder.decode(Overhead.Item.self, from: body)) != nil ? 1 : 0
    }
}
