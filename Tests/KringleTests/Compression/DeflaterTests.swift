import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

/// The streaming compressor under ``RequestCompression``: what it writes inflates, with
/// other people's tools, to what it was given, however the input is cut. Each tool is a
/// process, waited for on a thread of its own (``onOwnThread(_:)``).
@Suite struct DeflaterTests {
    /// Inputs: empty, one byte, text that compresses, noise that does not, and more than
    /// one scratch buffer of output.
    static let inputs: [(name: String, data: Data)] = [
        ("empty", Data()),
        ("one byte", Data([0x2A])),
        ("json lines", Inflating.sample(bytes: 300_000)),
        ("noise", Inflating.noise(bytes: 200_000)),
    ]

    static let cases: [(RequestCompression.Coding, Inflating.Tool, Int)] = RequestCompression.Coding.allCases
        .flatMap { coding in
            Inflating.Tool.allCases.filter { $0.reads(coding) }.flatMap { tool in
                inputs.indices.map { (coding, tool, $0) }
            }
        }

    @Test(arguments: cases)
    func inflatesWithOtherTools(coding: RequestCompression.Coding, tool: Inflating.Tool, input: Int) async throws {
        let original = Self.inputs[input].data
        let compressed = try RequestCompression(coding).compress(original)
        let inflated = try await onOwnThread { try Inflating.inflate(compressed, as: coding, with: tool) }
        #expect(inflated == original, "\(Self.inputs[input].name) through \(tool)")
    }

    /// Fed in uneven chunks, one stream writes what one call writes.
    @Test(arguments: RequestCompression.Coding.allCases, [1, 7, 4096, 70_000])
    func chunkedInputGivesOneValidStream(coding: RequestCompression.Coding, chunk: Int) async throws {
        let original = Inflating.sample(bytes: 150_000)
        let deflater = try Deflater(coding, level: 6)
        var compressed = Data()
        var offset = 0
        while offset < original.count {
            let end = min(offset + chunk, original.count)
            compressed += try deflater.compress(original.subdata(in: offset..<end), finish: false)
            offset = end
        }
        compressed += try deflater.compress(Data(), finish: true)
        #expect(deflater.isFinished)
        #expect(try await onOwnThread { try Inflating.inflate(compressed, as: coding, with: .pythonZlib) } == original)
        #expect(compressed == (try RequestCompression(coding).compress(original)))
    }

    /// RFC 1952 §2.3: a gzip member starts with ID1 ID2 = 0x1f 0x8b and CM = 8 (deflate).
    /// RFC 1950 §2.2: CMF = 0x78 (deflate, 32K window), and CMF·256 + FLG is a multiple of 31.
    @Test func headersFollowTheFormats() throws {
        let original = Inflating.sample(bytes: 4000)
        let gzip = try RequestCompression.gzip.compress(original)
        #expect(Array(gzip.prefix(3)) == [0x1F, 0x8B, 0x08])
        let zlib = try RequestCompression.deflate.compress(original)
        #expect(zlib.first == 0x78)
        #expect((Int(zlib[zlib.startIndex]) * 256 + Int(zlib[zlib.startIndex + 1])) % 31 == 0)
        #expect(gzip.count < original.count / 3)
    }

    @Test func levelsTradeSizeForSpeed() throws {
        let original = Inflating.sample(bytes: 200_000)
        let fast = try RequestCompression(.gzip, level: 1).compress(original)
        let small = try RequestCompression(.gzip, level: 9).compress(original)
        #expect(small.count < fast.count)
        #expect(RequestCompression(.gzip, level: 42).level == 9)
        #expect(RequestCompression(.gzip, level: -1).level == 1)
    }

    /// zlib missing: the loader's failure becomes a typed error, never a crash.
    @Test func zlibMissingIsATypedError() {
        let missing = CompressionFailure.zlibUnavailable("no libz here")
        #expect {
            _ = try RequestCompression.gzip.compress(Data("hello".utf8), zlib: .failure(missing))
        } throws: { error in
            guard case KringleError.compressionFailed(.zlibUnavailable("no libz here")) = error else { return false }
            return "\(error)".contains("no libz here")
        }
    }

    @Test func theSystemZlibLoads() throws {
        try Zlib.load().get()
        let version = try #require(Zlib.version)
        #expect(version.hasPrefix("1."))
        #expect(Zlib.libraryName?.contains("libz") == true)
    }
}
