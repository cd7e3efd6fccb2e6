import ChildProcess
import Foundation
import NginxTestServer

/// `kringle-benchmarks cold-start`: a one-shot script's whole process, `kringle-get URL` (one
/// GET through the default client, Benchmarks/OneShot), against `curl -s URL`, both fetching
/// the same 200-byte JSON from nginx: 30 runs each after 3 unmeasured, taking turns, the wall
/// time of each from start to exit. Prints the medians and their ratios (target ≤ 1.5x), and
/// the Foundation libraries `kringle-get` loads (`ldd`).
///
/// A third process, `kringle-get --loaded`, exits as soon as it runs: the share of the cold
/// start that is the process's libraries being loaded and linked, before any code of Kringle's
/// runs. Under callgrind (2026-12-07, Swift 6.3.1, libcurl 7.88.1) that share is most of it:
/// the dynamic linker's relocations are 32M of kringle-get's 43M instructions, and a Swift
/// program that only imports Foundation and loads libcurl runs 37M where `curl -s` runs its
/// whole GET in 16M. FoundationNetworking adds 1.6M of those (libcurl, which it links, is
/// loaded by Kringle anyway), Foundation over FoundationEssentials 9.4M.
///
/// `kringle-get` is a product of its own: `swift build -c release --product kringle-get`
/// first; it is looked for next to this executable.
func runColdStartBenchmark() throws {
    let oneShot = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("kringle-get").path
    guard FileManager.default.isExecutableFile(atPath: oneShot) else {
        print("cold-start skipped: no \(oneShot) (swift build -c release --product kringle-get)")
        return
    }
    guard let curl = ["/usr/bin/curl", "/bin/curl"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
        print("cold-start skipped: no curl command line (apt-get install -y curl)")
        return
    }
    let nginx: NginxServer
    switch NginxServer.start(serving: CurlBenchmark.payload) {
    case .success(let server): nginx = server
    case .failure(let reason):
        print("cold-start skipped: \(reason)")
        return
    }
    defer { nginx.stop() }
    let url = nginx.url.absoluteString
    let programs = [
        ("kringle-get", oneShot, [url]), ("kringle-get --loaded", oneShot, ["--loaded"]),
        ("curl -s", curl, ["-s", url]),
    ]
    var walls: [String: [Double]] = [:]
    for round in 0..<(ColdStart.warmUp + ColdStart.runs) {
        for (name, executable, arguments) in programs {
            let start = DispatchTime.now().uptimeNanoseconds
            let outcome = try ChildProcess.run(executable, arguments)
            let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            let expected = arguments == ["--loaded"] ? 0 : CurlBenchmark.payload.utf8.count
            guard outcome.status == 0, outcome.output.count == expected else {
                print("cold-start: \(name) failed (status \(outcome.status), \(outcome.output.count) bytes)")
                return
            }
            if round >= ColdStart.warmUp { walls[name, default: []].append(wall) }
        }
    }
    let median = { (name: String) in walls[name, default: [0]].sorted()[walls[name, default: [0]].count / 2] }
    print("## Cold start: one GET in a process of its own, \(ColdStart.runs) runs each, medians\n")
    let table = Table("process", "wall (ms)", "vs curl -s")
    for (name, _, _) in programs {
        table.row(name, String(format: "%.1f", median(name)), String(format: "%.2fx", median(name) / median("curl -s")))
    }
    let libraries = try ChildProcess.run("/usr/bin/ldd", [oneShot]).text
        .split(separator: "\n").compactMap { $0.split(whereSeparator: \.isWhitespace).first.map(String.init) }
        .filter { $0.contains("Foundation") }
    print(
        "\nkringle-get loads \(libraries.joined(separator: ", ")). Targets: ≤ 1.5x curl -s, no FoundationNetworking.\n")
}

enum ColdStart {
    static let warmUp = 3
    static let runs = 30
}
