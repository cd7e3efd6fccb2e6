import Foundation
import Kringle

/// An endpoint whose request bodies are compressed, or not, as the benchmark asks.
struct CompressedBenchmarkEndpoint: Endpoint {
    let baseURL: URL
    let path: String
    var compression: RequestCompression?
}

/// JSON log records, the kind of body that is sent compressed (log and metrics ingestion):
/// timestamps, levels, services, latencies, user and item numbers from a fixed-seed
/// generator, so every run compresses the same bytes. `separator` comes between records
/// (`"\n"` for NDJSON, `","` inside a JSON array).
func jsonLogRecords(byteCount: Int, separator: String = "\n") -> Data {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next(_ bound: UInt64) -> UInt64 {
        // A linear congruential generator (Knuth's MMIX constants): deterministic, not random.
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return (state >> 33) % bound
    }
    let levels = ["info", "info", "info", "warn", "error", "debug"]
    let services = ["checkout", "search", "auth", "inventory", "billing"]
    var records = Data()
    records.reserveCapacity(byteCount + 256)
    var time: UInt64 = 1_764_000_000_000
    while records.count < byteCount {
        time += next(50)
        let record =
            #"{"ts":\#(time),"level":"\#(levels[Int(next(6))])","service":"\#(services[Int(next(5))])","#
            + #""latency_ms":\#(next(2000)),"user":"u\#(next(100_000))","path":"/v1/items/\#(next(10_000))","#
            + #""msg":"request served"}"# + separator
        records.append(contentsOf: record.utf8)
    }
    return Data(records.prefix(byteCount))
}

/// A JSON array of log records, about `byteCount` bytes long.
func jsonArrayBody(byteCount: Int) -> Data {
    var records = jsonLogRecords(byteCount: byteCount - 2, separator: ",")
    // Cut back to the last whole record, so the array parses.
    if let lastComma = records.lastIndex(of: UInt8(ascii: ",")) {
        records = Data(records[records.startIndex..<lastComma])
    }
    return Data("[".utf8) + records + Data("]".utf8)
}

/// Writes `size` bytes of NDJSON log records to `url`: a 4 MiB block written again and again
/// (zlib's window is 32 KiB, so the repetition does not help it).
func writeLogFile(_ url: URL, size: Int64) throws {
    let block = jsonLogRecords(byteCount: 4 << 20)
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
        throw CompressionBenchmarkFailure("cannot create \(url.path)")
    }
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    var written: Int64 = 0
    while written < size {
        let count = Int(min(Int64(block.count), size - written))
        try handle.write(contentsOf: block.prefix(count))
        written += Int64(count)
    }
}

/// A benchmark that cannot run, and why.
struct CompressionBenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
