import Foundation
import Kringle
import KringleTesting
import NginxTestServer

/// `kringle-benchmarks cache`: what the cache saves per request, called as the README calls
/// the client (`get(…, as:)` and a handler, one request after another, `NetworkClient()` on
/// its default transport), and what its entries cost in memory.
///
/// Against nginx (LoopbackServer when it is not installed): the same 200-byte JSON without
/// a cache (the baseline: a network round trip), as a fresh hit from a memory cache and
/// from a directory cache (`/fresh/`, served with `max-age=3600`), and revalidated with a
/// `304` each time (the request says `Cache-Control: no-cache`). Alternating rounds, medians.
/// Then 10,000 responses of 2 KB stored in a memory cache: resident memory before and after.
func runCacheBenchmarks() throws {
    print("## Cache: a fresh hit and a revalidation against a network round trip\n")
    let server = try CacheBenchmark.Server.start()
    defer { server.stop() }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kringle-cache-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }

    let plain = NetworkClient()
    let memory = CacheBenchmark.client(cache: .memory())
    let disk = CacheBenchmark.client(cache: try .directory(directory))
    let cases: [(name: String, client: NetworkClient, endpoint: BenchmarkEndpoint)] = [
        ("no cache: network round trip", plain, server.fresh),
        ("memory cache, fresh hit", memory, server.fresh),
        ("directory cache, fresh hit", disk, server.fresh),
        ("memory cache, revalidated (304)", memory, server.revalidated),
    ]
    let count = CacheBenchmark.requests
    var runs = Array(repeating: [Timing](), count: cases.count)
    for entry in cases { _ = CacheBenchmark.run(entry.client, entry.endpoint, count: 200) }
    for _ in 0..<CacheBenchmark.rounds {
        for (index, entry) in cases.enumerated() {
            var failures = 0
            runs[index].append(Timing.of { failures = CacheBenchmark.run(entry.client, entry.endpoint, count: count) })
            if failures > 0 { print("\(entry.name): \(failures) failures") }
        }
    }
    let medians = runs.map { $0.sorted { $0.wall < $1.wall }[$0.count / 2] }
    print("\(count) sequential GETs per run, \(CacheBenchmark.rounds) alternating rounds, medians (\(server.name)):\n")
    let table = Table("case", "wall µs/req", "CPU µs/req", "vs network")
    for (entry, timing) in zip(cases, medians) {
        table.row(
            entry.name, CacheBenchmark.perRequest(timing.wall, count), CacheBenchmark.perRequest(timing.cpu, count),
            ratio(timing.wall, medians[0].wall))
    }
    CacheBenchmark.memoryFootprint()
}

enum CacheBenchmark {
    static let requests = 2_000
    static let rounds = 5

    static func client(cache: HTTPCache) -> NetworkClient {
        var configuration = NetworkClient.Configuration()
        configuration.cache = cache
        return NetworkClient(configuration: configuration)
    }

    static func perRequest(_ seconds: Double, _ count: Int) -> String {
        String(format: "%.1f", seconds / Double(count) * 1_000_000)
    }

    /// `count` GETs one after another, each decoded and handled as in the README; the
    /// failures.
    static func run(_ client: NetworkClient, _ endpoint: BenchmarkEndpoint, count: Int) -> Int {
        CurlBenchmark.pump(count: count, inFlight: 1) { completion in
            client.get(endpoint, as: Overhead.Item.self)
                .done { _ in completion(true) }
                .catch { _ in completion(false) }
        }
    }

    /// 10,000 responses of 2 KB each in a memory cache: what they take of the process's
    /// resident memory against what the storage counts.
    static func memoryFootprint() {
        let storage = MemoryCacheStorage(maximumBytes: 1 << 30)
        let headers: HTTPHeaders = [
            "Content-Type": "application/json", "Cache-Control": "max-age=3600",
            "Date": "Tue, 14 Nov 2023 22:13:20 GMT", "ETag": "\"5f3a2b1c-800\"",
        ]
        let before = currentResidentMegabytes()
        for index in 0..<10_000 {
            let url = URL(string: "https://api.example/items/\(index)")!
            var body = Data(repeating: UInt8(ascii: "x"), count: 2_048)  // a buffer of its own, as from the network
            body[0] = UInt8(truncatingIfNeeded: index)
            let response = CachedResponse(
                url: url, statusCode: 200, headers: headers, body: body, requestDate: Date(), responseDate: Date())
            storage.setResponses([response], forKey: url.absoluteString)
        }
        let after = currentResidentMegabytes()
        print(
            String(
                format:
                    "\n10,000 entries of 2 KB in a memory cache: %.1f MB resident (%.1f MB counted by the storage)\n",
                after - before, Double(storage.totalBytes) / 1_048_576))
    }

    /// nginx serving the benchmark's JSON at `/fresh/item.json` (with `max-age=3600`) and
    /// `/item.json` (with `ETag` and `Last-Modified`), or a LoopbackServer that does the same.
    struct Server {
        let name: String
        let fresh: BenchmarkEndpoint
        let revalidated: BenchmarkEndpoint
        let stop: () -> Void

        static func start() throws -> Server {
            let started = NginxServer.start(path: "/fresh/item.json") { www in
                for folder in [www, www.appendingPathComponent("fresh")] {
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    try CurlBenchmark.payload.write(
                        to: folder.appendingPathComponent("item.json"), atomically: true, encoding: .utf8)
                }
            }
            switch started {
            case .success(let nginx):
                return Server(name: "nginx", base: nginx.url.deletingLastPathComponent().deletingLastPathComponent()) {
                    nginx.stop()
                }
            case .failure(let reason):
                print("nginx skipped (\(reason)); using LoopbackServer\n")
                let loopback = try LoopbackServer { request in
                    guard request.path.hasPrefix("/fresh/") else {
                        if request.header("If-None-Match") == "\"v1\"" { return .status(304) }
                        return .json(CurlBenchmark.payload).addingHeader("ETag", "\"v1\"")
                    }
                    return .json(CurlBenchmark.payload).addingHeader("Cache-Control", "max-age=3600")
                }
                return Server(name: "LoopbackServer", base: loopback.baseURL) { loopback.shutdown() }
            }
        }

        private init(name: String, base: URL, stop: @escaping () -> Void) {
            self.name = name
            fresh = BenchmarkEndpoint(baseURL: base, path: "/fresh/item.json")
            var revalidated = BenchmarkEndpoint(baseURL: base, path: "/item.json")
            revalidated.headers = ["Cache-Control": "no-cache"]
            self.revalidated = revalidated
            self.stop = stop
        }
    }
}

/// The resident set size of this process now, in megabytes (Linux: `/proc/self/statm`;
/// elsewhere the peak, which is the best `getrusage` offers).
func currentResidentMegabytes() -> Double {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
        let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
    else { return peakResidentMegabytes() }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}
