import Foundation
import Kringle
import KringleTesting
import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client benchmarks of the client-core issue, against `LoopbackServer`, each against
/// raw URLSession + JSONDecoder in the same run:
/// 2,000 sequential GETs of a small JSON decoded into a struct, each awaited with `wait()`;
/// the same from 8 `concurrentPerform` lanes (which run no more at once than there are
/// cores; `kringle-benchmarks overhead` keeps 8 truly in flight);
/// the memory growth over 10,000 requests; and decoding a 50 MB JSON body. The client is
/// `NetworkClient()` as the README makes it (so `CurlTransport` on Linux); the GETs are also
/// measured through `NetworkClient(transport: URLSessionTransport())`.
func runClientBenchmarks() throws {
    print("## Client (median of 3 alternating rounds, LoopbackServer on 127.0.0.1)\n")
    let payload = Data(
        #"{"id": 42, "name": "Tom", "mood": "purring", "tags": ["tabby", "indoor"], "weight": 4.2}"#.utf8)
    let server = try LoopbackServer { _ in .data(payload, contentType: "application/json") }
    defer { server.shutdown() }
    let endpoint = BenchmarkEndpoint(baseURL: server.baseURL, path: "/cat")
    let url = server.url("/cat")
    let client = NetworkClient()
    let clients = [
        ("NetworkClient() (\(type(of: client.transport)))", client),
        ("NetworkClient(transport: URLSessionTransport())", NetworkClient(transport: URLSessionTransport())),
    ]
    let raw = RawURLSession()

    let table = Table("case", "raw URLSession + JSONDecoder", "Kringle", "ratio", "target")
    for inFlight in [1, 8] {
        for (name, candidate) in clients {
            let timings = try Timing.compare(rounds: 3) {
                try runConcurrently(2_000, inFlight: inFlight) { _ = try raw.get(url, as: BenchmarkCat.self) }
            } candidate: {
                try runConcurrently(2_000, inFlight: inFlight) {
                    _ = try candidate.get(endpoint, as: BenchmarkCat.self).wait()
                }
            }
            table.row(
                "2,000 GETs, \(inFlight) in flight, \(name)", milliseconds(timings.baseline.wall),
                milliseconds(timings.candidate.wall), ratio(timings.candidate.wall, timings.baseline.wall),
                "≤ 1.05x")
        }
    }

    let before = peakResidentMegabytes()
    try runConcurrently(10_000, inFlight: 8) { _ = try client.get(endpoint, as: BenchmarkCat.self).wait() }
    let growth = peakResidentMegabytes() - before
    table.row("peak RSS growth over 10,000 more requests", "", String(format: "%.1f MB", growth), "", "< 5 MB")

    let big = largeJSON(megabytes: 50)
    let bigServer = try LoopbackServer { _ in .data(big, contentType: "application/json") }
    defer { bigServer.shutdown() }
    let bigEndpoint = BenchmarkEndpoint(baseURL: bigServer.baseURL, path: "/cats")
    let body = try client.get(bigEndpoint, as: Data.self).wait()
    let decoding = try Timing.compare(rounds: 3) {
        blackHole(try JSONDecoder().decode([BenchmarkCat].self, from: body).count)
    } candidate: {
        let transport = StubTransport()
        transport.stub(.get, "/cats", with: .init(body: body))
        let stubbed = NetworkClient(transport: transport)
        blackHole(try stubbed.get(bigEndpoint, as: [BenchmarkCat].self).wait().count)
    }
    table.row(
        "decode a \(body.count / 1_000_000) MB JSON body", milliseconds(decoding.baseline.wall),
        milliseconds(decoding.candidate.wall), ratio(decoding.candidate.wall, decoding.baseline.wall), "≤ 1.1x")
    print("")
}

struct BenchmarkEndpoint: Endpoint {
    let baseURL: URL
    let path: String
    var headers: [String: String] = [:]
}

struct BenchmarkCat: Codable, Sendable {
    var id: Int
    var name: String
    var mood: String
    var tags: [String]
    var weight: Double
}

/// Plain URLSession the way people use it: a data task with a completion handler.
final class RawURLSession: Sendable {
    private let session = URLSession(configuration: .ephemeral)

    func get<Value: Decodable & Sendable>(_ url: URL, as type: Value.Type) throws -> Value {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<Value, any Error>>(.failure(URLError(.unknown)))
        session.dataTask(with: url) { data, _, error in
            outcome.set(
                Result {
                    if let error { throw error }
                    return try JSONDecoder().decode(Value.self, from: data ?? Data())
                })
            done.signal()
        }.resume()
        done.wait()
        return try outcome.get().get()
    }
}

/// Runs `work` `count` times with at most `inFlight` calls at once.
func runConcurrently(_ count: Int, inFlight: Int, _ work: @escaping @Sendable () throws -> Void) throws {
    let failures = Locked<(any Error)?>(nil)
    DispatchQueue.concurrentPerform(iterations: inFlight) { lane in
        for _ in stride(from: lane, to: count, by: inFlight) {
            do { try work() } catch { failures.set(error) }
        }
    }
    if let failure = failures.get() { throw failure }
}

private func largeJSON(megabytes: Int) -> Data {
    let cat = #"{"id": 42, "name": "Tom", "mood": "purring", "tags": ["tabby", "indoor"], "weight": 4.2}"#
    let count = megabytes * 1_000_000 / (cat.utf8.count + 1)
    return Data(("[" + Array(repeating: cat, count: count).joined(separator: ",") + "]").utf8)
}
