import Foundation
import Kringle
import KringleURLSession
import NginxTestServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `kringle-benchmarks https`: 2,000 HTTPS GETs of the overhead benchmark's JSON through the
/// client (`get(…, as:)` and a handler), against nginx offering HTTP/2 and HTTP/1.1 with a
/// certificate of the test CA (`Tests/KringleTests/Fixtures/tls`), with 1, 8 and 64 in
/// flight: `CurlTransport` over HTTP/2 and over HTTP/1.1. Requests per second, CPU per
/// request and connections opened per run; median of 3 alternating rounds.
///
/// `URLSessionTransport` is not measured: on Linux FoundationNetworking trusts only the
/// system's certificate authorities, so it cannot reach a server of a test CA.
func runHTTPSBenchmarks() throws {
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/KringleTests/Fixtures/tls")
    let tls = NginxServer.TLS(
        certificate: fixtures.appendingPathComponent("localhost.pem"),
        key: fixtures.appendingPathComponent("localhost.key"))
    let server: NginxServer
    switch NginxServer.start(serving: CurlBenchmark.payload, tls: tls) {
    case .success(let started): server = started
    case .failure(let reason):
        print("https skipped: \(reason)")
        return
    }
    defer { server.stop() }
    guard let url = server.httpsURL else { return }
    let endpoint = BenchmarkEndpoint(baseURL: url.deletingLastPathComponent(), path: url.lastPathComponent)
    let ca = fixtures.appendingPathComponent("ca.pem").path
    let versions: [(String, CurlTransport.HTTPVersion)] = [
        ("HTTP/2", .automatic), ("HTTP/1.1", .http1_1),
    ]
    let count = 2_000

    print("## HTTPS through the client against nginx: \(count) GETs per run, median of 3\n")
    print("| transport | version | in flight | requests/s | CPU µs/req | new conns/run |")
    print("|---|---|---|---|---|---|")
    for inFlight in [1, 8, 64] {
        var runs: [String: [(wall: Double, cpu: Double, connections: Int?)]] = [:]
        let clients = versions.map { name, version in
            (
                name,
                NetworkClient(
                    transport: CurlTransport(
                        configuration: .init(
                            maximumConnectionsPerHost: 64, certificateAuthorityFile: ca, httpVersion: version)))
            )
        }
        for (_, client) in clients { _ = HTTPSRun.run(client, endpoint, count: 200, inFlight: inFlight) }
        for _ in 0..<3 {
            for (name, client) in clients {
                let before = server.acceptedConnections()
                let cpuBefore = processCPUSeconds()
                let start = DispatchTime.now().uptimeNanoseconds
                let failures = HTTPSRun.run(client, endpoint, count: count, inFlight: inFlight)
                let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                let cpu = processCPUSeconds() - cpuBefore
                let connections = before.flatMap { before in server.acceptedConnections().map { $0 - before } }
                if failures > 0 { print("\(name), \(inFlight) in flight: \(failures) failures") }
                runs[name, default: []].append((wall, cpu, connections))
            }
        }
        for (name, _) in versions {
            guard let all = runs[name] else { continue }
            let median = all.sorted { $0.wall < $1.wall }[all.count / 2]
            print(
                "| CurlTransport | \(name) | \(inFlight) | "
                    + String(format: "%.0f", Double(count) / median.wall) + " | "
                    + String(format: "%.1f", median.cpu / Double(count) * 1e6) + " | "
                    + (median.connections.map(String.init) ?? "n/a") + " |")
        }
    }
    print("| URLSessionTransport | – | – | n/a: FoundationNetworking cannot trust a private CA on Linux | | |\n")
}

enum HTTPSRun {
    /// `count` typed GETs, `inFlight` at a time; returns the failures.
    static func run(_ client: NetworkClient, _ endpoint: BenchmarkEndpoint, count: Int, inFlight: Int) -> Int {
        CurlBenchmark.pump(count: count, inFlight: inFlight) { completion in
            client.get(endpoint, as: Overhead.Item.self)
                .done { _ in completion(true) }
                .catch { _ in completion(false) }
        }
    }
}
