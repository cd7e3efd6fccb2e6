import Foundation
import KringleTesting
import NginxTestServer

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Compares `CurlTransport.send` with a plain URLSession data task on small JSON GETs:
/// 2,000 one after another, then 2,000 with 8 in flight, against LoopbackServer and, when
/// it is installed, nginx. Prints wall and CPU time per request and the curl/URLSession
/// ratio of wall times (targets: at most 0.3 sequential, 0.15 with 8 in flight).
///
///     swift run -c release kringle-curl-benchmarks
///
/// CPU time is `getrusage(RUSAGE_SELF)`, so against LoopbackServer it includes the server's
/// threads, which run in this process; against nginx it is the client's alone.
func runCurlBenchmarks() {
    print(
        "CurlTransport vs URLSession, \(CurlBenchmark.requests) GETs of a \(CurlBenchmark.payload.utf8.count)-byte JSON"
    )
    var rows: [CurlBenchmark.Row] = []
    do {
        let loopback = try LoopbackServer { _ in .json(CurlBenchmark.payload) }
        defer { loopback.shutdown() }
        rows += CurlBenchmark.compare(server: "LoopbackServer", url: loopback.url("/item.json"))
    } catch {
        print("LoopbackServer could not start: \(error)")
    }
    switch NginxServer.start(serving: CurlBenchmark.payload) {
    case .success(let nginx):
        rows += CurlBenchmark.compare(server: "nginx", url: nginx.url)
        nginx.stop()
    case .failure(let reason):
        print("nginx skipped: \(reason)")
    }
    CurlBenchmark.printTable(rows)
}

/// The pieces of the benchmark, kept out of the global namespace of the benchmark target.
enum CurlBenchmark {
    /// Requests per measurement.
    static let requests = 2_000
    /// Requests sent before measuring, so that connections are open and code paths warm.
    static let warmUp = 200
    /// Measured runs per client and mode; the table shows the median one.
    static let rounds = 3
    /// A small JSON document of about 200 bytes, like a typical API answer.
    static let payload =
        #"{"id":12345,"name":"Kringle benchmark item","tags":["swift","curl","promise","http"],"#
        + #""price":19.99,"available":true,"updated":"2026-11-30T12:00:00Z","description":"two hundred bytes of JSON."}"#

    /// How many requests are outstanding at once.
    enum Mode: String {
        case sequential = "sequential"
        case eightInFlight = "8 in flight"

        var inFlight: Int { self == .sequential ? 1 : 8 }
        /// The most curl may spend relative to URLSession's wall time.
        var target: Double { self == .sequential ? 0.3 : 0.15 }
    }

    /// One measured run.
    struct Measurement {
        var wallSeconds: Double
        var cpuSeconds: Double
        var failures: Int

        func perRequest(_ seconds: Double) -> String {
            String(format: "%.1f", seconds / Double(CurlBenchmark.requests) * 1_000_000)
        }
    }

    /// One line of the table: both clients on one server in one mode.
    struct Row {
        var server: String
        var mode: Mode
        var urlSession: Measurement
        var curl: Measurement
    }

    /// Measures both clients in both modes against `url`: `rounds` runs each, alternating
    /// between the clients so that background load hits both alike, keeping each client's
    /// median run.
    static func compare(server: String, url: URL) -> [Row] {
        [Mode.sequential, .eightInFlight].map { mode in
            let urlSession = URLSessionClient(inFlight: mode.inFlight)
            let curl = CurlClient(inFlight: mode.inFlight)
            _ = urlSession.run(url: url, count: warmUp)
            _ = curl.run(url: url, count: warmUp)
            var sessionRuns: [Measurement] = []
            var curlRuns: [Measurement] = []
            for _ in 0..<rounds {
                sessionRuns.append(measure { urlSession.run(url: url, count: requests) })
                curlRuns.append(measure { curl.run(url: url, count: requests) })
            }
            urlSession.invalidate()
            print("  measured \(server), \(mode.rawValue)")
            return Row(server: server, mode: mode, urlSession: median(sessionRuns), curl: median(curlRuns))
        }
    }

    /// The run with the median wall time.
    static func median(_ runs: [Measurement]) -> Measurement {
        let sorted = runs.sorted { $0.wallSeconds < $1.wallSeconds }
        return sorted[sorted.count / 2]
    }

    /// Wall and CPU time of `body`, which returns how many requests failed.
    static func measure(_ body: () -> Int) -> Measurement {
        let cpuBefore = cpuSeconds()
        let start = DispatchTime.now()
        let failures = body()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000_000
        return Measurement(wallSeconds: wall, cpuSeconds: cpuSeconds() - cpuBefore, failures: failures)
    }

    /// User plus system CPU seconds used by this process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        #if canImport(Darwin)
        _ = getrusage(RUSAGE_SELF, &usage)
        #else
        _ = getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    static func printTable(_ rows: [Row]) {
        print("")
        print(
            "Median of \(rounds) runs of \(requests) requests each; CPU is getrusage(RUSAGE_SELF) (includes LoopbackServer's threads)."
        )
        print("| server | mode | client | wall (s) | wall/req (µs) | CPU/req (µs) | curl/URLSession wall | target |")
        print("|---|---|---|---:|---:|---:|---:|---|")
        for row in rows {
            let ratio = row.curl.wallSeconds / row.urlSession.wallSeconds
            let verdict = ratio <= row.mode.target ? "≤ \(row.mode.target) met" : "≤ \(row.mode.target) MISSED"
            for (client, measurement) in [("URLSession", row.urlSession), ("CurlTransport", row.curl)] {
                let isCurl = client == "CurlTransport"
                let failures = measurement.failures > 0 ? " (\(measurement.failures) failed)" : ""
                let cells: [String] = [
                    row.server,
                    row.mode.rawValue,
                    client + failures,
                    String(format: "%.3f", measurement.wallSeconds),
                    measurement.perRequest(measurement.wallSeconds),
                    measurement.perRequest(measurement.cpuSeconds),
                    isCurl ? String(format: "%.3f", ratio) : "",
                    isCurl ? verdict : "",
                ]
                print("| " + cells.joined(separator: " | ") + " |")
            }
        }
    }
}
