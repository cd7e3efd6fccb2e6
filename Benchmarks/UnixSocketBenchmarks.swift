import Foundation
import Kringle
import NginxTestServer

/// `kringle-benchmarks unix-socket`: 4,000 GETs of the overhead benchmark's JSON through the
/// client (`get(…, as:)`, decoded, `CurlTransport`) to one nginx, over TCP to 127.0.0.1,
/// over a Unix domain socket (`http+unix`) and through an HTTP proxy (tinyproxy, when
/// installed) to the TCP port, with 1, 8 and 64 in flight. Requests per second
/// and CPU per request (the client's process: nginx runs in its own); median of 5 rounds that
/// alternate the two ways, so that a noisy neighbour hurts both alike.
func runUnixSocketBenchmarks() throws {
    let socketPath = "/tmp/kringle-bench-\(getpid()).sock"
    let server: NginxServer
    switch NginxServer.start(
        path: "/item.json", unixSocket: socketPath,
        prepare: { www in
            try CurlBenchmark.payload.write(
                to: www.appendingPathComponent("item.json"), atomically: true, encoding: .utf8)
        })
    {
    case .success(let started): server = started
    case .failure(let reason):
        print("unix-socket skipped: \(reason)")
        return
    }
    defer { server.stop() }
    let ways: [(String, BenchmarkEndpoint)] = [
        ("TCP, 127.0.0.1", BenchmarkEndpoint(baseURL: server.url.deletingLastPathComponent(), path: "item.json")),
        ("Unix socket", BenchmarkEndpoint(baseURL: UnixSocketURL(socketPath: socketPath).url, path: "item.json")),
    ]
    let tcpEndpoint = BenchmarkEndpoint(baseURL: server.url.deletingLastPathComponent(), path: "item.json")
    var proxied: (String, BenchmarkEndpoint, CurlTransport.Proxy)?
    let proxy = try? BenchmarkProxy.start().get()
    defer { proxy?.stop() }
    if let proxy, proxy.waitUntilForwarding(to: server.url) {
        proxied = ("HTTP proxy (tinyproxy)", tcpEndpoint, .url(proxy.url))
    } else {
        print("the HTTP proxy way is skipped: tinyproxy did not start (apt-get install -y tinyproxy-bin)\n")
    }
    let count = 4_000

    print("## TCP, a Unix socket and an HTTP proxy, through the client to nginx: \(count) GETs per run, median of 5\n")
    print("| way | in flight | requests/s | CPU µs/req |")
    print("|---|---|---|---|")
    for inFlight in [1, 8, 64] {
        var clients = ways.map { name, endpoint in
            (
                name, endpoint,
                NetworkClient(transport: CurlTransport(configuration: .init(maximumConnectionsPerHost: 64)))
            )
        }
        if let (name, endpoint, route) = proxied {
            let transport = CurlTransport(configuration: .init(maximumConnectionsPerHost: 64, proxy: route))
            clients.append((name, endpoint, NetworkClient(transport: transport)))
        }
        for (_, endpoint, client) in clients { _ = HTTPSRun.run(client, endpoint, count: 200, inFlight: inFlight) }
        var runs: [String: [(wall: Double, cpu: Double)]] = [:]
        for _ in 0..<5 {
            for (name, endpoint, client) in clients {
                var failures = 0
                let timing = Timing.of { failures = HTTPSRun.run(client, endpoint, count: count, inFlight: inFlight) }
                if failures > 0 { print("\(name), \(inFlight) in flight: \(failures) failures") }
                runs[name, default: []].append((timing.wall, timing.cpu))
            }
        }
        for (name, _, _) in clients {
            guard let all = runs[name] else { continue }
            let median = all.sorted { $0.wall < $1.wall }[all.count / 2]
            print(
                "| \(name) | \(inFlight) | " + String(format: "%.0f", Double(count) / median.wall) + " | "
                    + String(format: "%.1f", median.cpu / Double(count) * 1e6) + " |")
        }
    }
    print("")
}
