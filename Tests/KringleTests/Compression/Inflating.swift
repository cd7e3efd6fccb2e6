import ChildProcess
import Foundation
import Kringle
import KringleTestSupport
import Testing

/// Inflates bytes Kringle compressed with tools that are not Kringle's, so that a test
/// checks interoperability rather than a round trip through the same zlib: Python's `zlib`
/// and `gzip` modules, and the `gzip` command line tool.
enum Inflating {
    /// Who inflates.
    enum Tool: String, CaseIterable, CustomStringConvertible, Sendable {
        /// `gzip.decompress`: RFC 1952 only.
        case pythonGzip
        /// `zlib.decompress` with `wbits` 15 (RFC 1950) or 31 (RFC 1952).
        case pythonZlib
        /// `gzip -d -c`: RFC 1952 only.
        case gzipCommand

        var description: String { rawValue }

        /// Whether the tool reads `coding`.
        func reads(_ coding: RequestCompression.Coding) -> Bool {
            self == .pythonZlib || coding == .gzip
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `compressed` inflated by `tool`, which must exit 0.
    static func inflate(_ compressed: Data, as coding: RequestCompression.Coding, with tool: Tool) throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kringle-inflate-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("body")
        try compressed.write(to: file)
        let outcome: ChildProcess.Outcome
        switch tool {
        case .pythonGzip:
            outcome = try ChildProcess.run(
                try python(),
                [
                    "-c", "import sys, gzip; sys.stdout.buffer.write(gzip.decompress(open(sys.argv[1], 'rb').read()))",
                    file.path,
                ])
        case .pythonZlib:
            let bits = coding == .gzip ? 31 : 15
            outcome = try ChildProcess.run(
                try python(),
                [
                    "-c",
                    "import sys, zlib; sys.stdout.buffer.write(zlib.decompress(open(sys.argv[1], 'rb').read(), \(bits)))",
                    file.path,
                ])
        case .gzipCommand:
            outcome = try ChildProcess.run(try TestTool.gzip.path(), ["-d", "-c", file.path])
        }
        guard outcome.status == 0 else {
            throw Failure(description: "\(tool) exited with \(outcome.status)")
        }
        return outcome.output
    }

    /// Python 3, as `.ci/run` installs it.
    static func python() throws -> String {
        try TestTool.python3.path()
    }

    /// Bytes that compress well but not trivially: JSON-like lines with varying numbers.
    static func sample(bytes count: Int) -> Data {
        var data = Data()
        data.reserveCapacity(count + 64)
        var index = 0
        while data.count < count {
            data.append(contentsOf: "{\"id\":\(index),\"cat\":\"Tom\",\"purrs\":\(index * 7919 % 1000)}\n".utf8)
            index += 1
        }
        return data.prefix(count)
    }

    /// Bytes that do not compress: a fixed pseudo-random sequence (xorshift).
    static func noise(bytes count: Int) -> Data {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var data = Data(count: count)
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            data[index] = UInt8(truncatingIfNeeded: state)
        }
        return data
    }
}
