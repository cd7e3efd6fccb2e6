import Foundation
import Kringle
import NginxTestServer
import Synchronization

/// `kringle-benchmarks soak [--short] [--transport curl|urlsession|both] [--seconds N]`: the
/// client as a production user runs it, under faults, and whether it keeps every promise.
///
/// nginx serves a 200-byte JSON document; `Scripts/chaos_proxy.py` in front of it spoils 22%
/// of the responses (resets and closes mid-body, closes after the head, stalls past the time
/// limit, garbage status lines, delays). For each transport, the phases of ``SoakPhases``:
/// (a) faults, (b) retries, (c) an outage, (d) fan-outs. Each prints its requests, successes,
/// error kinds, slowest settlement against the time limit, and peak descriptors, threads and
/// memory. The run fails (exit status 1) on a broken promise: a settlement later than
/// `timeout` plus `--margin`, a request never settled or settled twice, an untyped error, a
/// fan-out of 1,000 slower than 2 s, more than 256 descriptors. Targets that are not promises
/// (success with retries, recovery, memory) are reported, met or missed.
///
/// The short form (`--short`) takes about a minute for both transports, for CI; the full form
/// a few minutes per transport.
func runSoak(_ arguments: [String]) throws -> Int32 {
    let options = try SoakOptions(arguments)
    let started = Date()
    let nginx = try NginxServer.start(serving: CurlBenchmark.payload).get()
    let servers = SoakServers(nginx: nginx)
    let signalSources = servers.stopOnSignals()
    defer { for source in signalSources { source.cancel() } }
    let proxy: ChaosProxy
    do {
        guard let port = nginx.url.port else { throw ProxyError("nginx has no port") }
        proxy = try ChaosProxy.start(upstreamPort: port, seed: options.seed)
    } catch {
        servers.stop()
        throw error
    }
    servers.adopt(proxy)
    defer { servers.stop() }

    print("## Soak (\(options.short ? "short" : "full") form): nginx, and chaos_proxy.py on port \(proxy.port)")
    fflush(nil)
    var results: [SoakPhaseResult] = []
    for transport in options.transports {
        let phases = SoakPhases(
            options: options, transportName: transport, proxy: proxy,
            proxied: BenchmarkEndpoint(baseURL: URL(string: "http://127.0.0.1:\(proxy.port)")!, path: "item.json"),
            direct: BenchmarkEndpoint(baseURL: nginx.url.deletingLastPathComponent(), path: "item.json"))
        try phases.run { result in
            result.print(options)
            results.append(result)
        }
    }
    let kept = SoakReport.summarize(results, options: options, seconds: Date().timeIntervalSince(started))
    return kept ? 0 : 1
}

/// nginx and the proxy, stopped once: when the run ends, fails, or is interrupted (SIGINT,
/// SIGTERM), so that neither outlives it.
final class SoakServers: Sendable {
    private let nginx: NginxServer
    private let proxy = Locked<ChaosProxy?>(nil)
    private let stopped = Atomic(false)

    init(nginx: NginxServer) {
        self.nginx = nginx
    }

    /// Makes SIGINT and SIGTERM stop the servers and end the process; keep the sources
    /// until the servers are stopped.
    func stopOnSignals() -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                stop()
                exit(128 + number)
            }
            source.resume()
            return source
        }
    }

    func adopt(_ proxy: ChaosProxy) {
        self.proxy.set(proxy)
    }

    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        proxy.get()?.stop()
        nginx.stop()
    }
}
