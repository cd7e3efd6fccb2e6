import Foundation
import Kringle
import KringleTesting

/// The cassette benchmarks of the record-and-replay issue, against `LoopbackServer`, each
/// against a plain client in the same run: 2,000 sequential GETs of a small JSON through a
/// `RecordingTransport` (entries kept in memory, written once at the end; and written after
/// each exchange, for 200 GETs, the cassette rewritten each time) against `NetworkClient()`;
/// and the same GETs replayed from a cassette (`ReplayTransport`, entries repeatable) against
/// the `LoopbackServer` itself.
func runCassetteBenchmarks() throws {
    print("## Cassettes (median of 3 alternating rounds, LoopbackServer on 127.0.0.1)\n")
    let payload = Data(
        #"{"id": 42, "name": "Tom", "mood": "purring", "tags": ["tabby", "indoor"], "weight": 4.2}"#.utf8)
    let server = try LoopbackServer { _ in .data(payload, contentType: "application/json") }
    defer { server.shutdown() }
    let endpoint = BenchmarkEndpoint(baseURL: server.baseURL, path: "/cat")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kringle-cassettes-\(getpid())")
    defer { try? FileManager.default.removeItem(at: folder) }
    let plain = NetworkClient()
    let table = Table("case", "plain NetworkClient()", "cassette", "ratio", "target")

    for (count, eachExchange) in [(2_000, false), (200, true)] {
        var round = 0
        let timings = try Timing.compare(rounds: 3) {
            for _ in 0..<count { _ = try plain.get(endpoint, as: BenchmarkCat.self).wait() }
        } candidate: {
            round += 1
            let recorder = RecordingTransport(
                recording: NetworkClient.makeDefaultTransport(),
                to: folder.appendingPathComponent("record-\(count)-\(round).har"), writesEachExchange: eachExchange)
            let recording = NetworkClient(transport: recorder)
            for _ in 0..<count { _ = try recording.get(endpoint, as: BenchmarkCat.self).wait() }
            try recorder.flush()
        }
        table.row(
            "\(count == 2_000 ? "2,000" : String(count)) GETs recorded, file written \(eachExchange ? "after each exchange" : "once at the end")",
            milliseconds(timings.baseline.wall), milliseconds(timings.candidate.wall),
            ratio(timings.candidate.wall, timings.baseline.wall), "")
    }

    let cassette = folder.appendingPathComponent("replay.har")
    let recorder = RecordingTransport(recording: NetworkClient.makeDefaultTransport(), to: cassette)
    _ = try NetworkClient(transport: recorder).get(endpoint, as: BenchmarkCat.self).wait()
    let replaying = NetworkClient(
        transport: try ReplayTransport(cassette: cassette, matching: CassetteMatching(reuse: .repeatable)))
    let replay = try Timing.compare(rounds: 3) {
        for _ in 0..<2_000 { _ = try plain.get(endpoint, as: BenchmarkCat.self).wait() }
    } candidate: {
        for _ in 0..<2_000 { _ = try replaying.get(endpoint, as: BenchmarkCat.self).wait() }
    }
    table.row(
        "2,000 GETs: LoopbackServer vs replayed from a cassette", milliseconds(replay.baseline.wall),
        milliseconds(replay.candidate.wall), ratio(replay.candidate.wall, replay.baseline.wall), "< 1x")
    print("")
}
