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
/// Two more floors price what a style asks for by itself, with libcurl alone: answers
/// handed to blocked threads, each with an easy handle of its own (what `wait()` from several
/// threads costs at least: each answer wakes its thread), and answers awaited by tasks (what
/// `await` costs at least: a pool thread woken per answer, besides the one that read it). The
/// last column sets each style against its own floor.
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
    /// The styles measured, the floors first.
    static let styles: [Overhead.Style] = [.libcurl, .libcurlWaiting, .libcurlAwaited, .handler, .wait, .await]

    /// The floor of what `style` asks for by itself.
    static func ownFloor(of style: Overhead.Style) -> Overhead.Style {
        switch style {
        case .wait: .libcurlWaiting
        case .await: .libcurlAwaited
        default: .libcurl
        }
    }

    static func table(server: OverheadServer, heading: String) throws {
        print(
            "## The client against libcurl alone over \(server.name), \(heading): \(Overhead.requests) GETs per run,"
                + " medians of \(Overhead.rounds)\n")
        let table = Table(
            "mode", "style", "wall µs/req", "CPU µs/req", "switches/req", "allocs/req", "wall vs floor",
            "CPU vs floor", "CPU vs own floor")
        for inFlight in [1, 8] {
            let measured = Overhead.measure(
                transport: CurlTransport(), inFlight: inFlight, server: server, styles: styles)
            for style in styles {
                guard let run = measured.median(style) else { continue }
                let perRequest = { (value: Double) in String(format: "%.1f", value / Double(Overhead.requests)) }
                let failures = run.failures > 0 ? " (\(run.failures) failed)" : ""
                let ownFloor = ownFloor(of: style)
                table.row(
                    inFlight == 1 ? "one at a time" : "\(inFlight) in flight", style.rawValue + failures,
                    perRequest(run.wall * 1e6), perRequest(run.cpu * 1e6), perRequest(Double(run.contextSwitches)),
                    perRequest(Double(run.allocations)),
                    style == .libcurl ? "" : measured.ratio(style, to: .libcurl, \.wall),
                    style == .libcurl ? "" : measured.ratio(style, to: .libcurl, \.cpu),
                    style.isLibcurl || ownFloor == .libcurl ? "" : measured.ratio(style, to: ownFloor, \.cpu))
            }
        }
        print("")
    }
}
