import CCurlShim
import Foundation

/// One zlib deflate stream, fed a chunk at a time: the streaming compressor under
/// ``RequestCompression``.
///
/// Not thread-safe: one stream belongs to one reader of one body, as a
/// ``StreamedBodyReader`` does.
final class Deflater {
    private let stream: OpaquePointer
    /// Where zlib writes before the bytes are appended to the result; reused.
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    private(set) var isFinished = false

    /// Starts a stream.
    ///
    /// - Parameters:
    ///   - coding: gzip (RFC 1952, zlib's `windowBits` 31) or deflate (the zlib format of
    ///     RFC 1950, `windowBits` 15; RFC 9110 §8.4.1.2 names it "deflate").
    ///   - level: zlib's level, 1 (fastest) to 9 (smallest).
    ///   - zlib: whether zlib loaded; tests pass a failure.
    /// - Throws: ``KringleError/compressionFailed(_:)``.
    convenience init(
        _ coding: RequestCompression.Coding, level: Int, zlib: Result<Void, CompressionFailure> = Zlib.load()
    ) throws(KringleError) {
        let windowBits: Int32 =
            switch coding {
            case .gzip: 15 + 16
            case .deflate: 15
            }
        try self.init(windowBits: windowBits, level: level, zlib: zlib)
    }

    /// Starts a stream of raw deflate data (RFC 1951, `windowBits` -15), without a header or
    /// checksum: WebSocket's `permessage-deflate` (RFC 7692 §7.2.1).
    convenience init(raw: Void) throws(KringleError) {
        try self.init(windowBits: -15, level: 6, zlib: Zlib.load())
    }

    private init(windowBits: Int32, level: Int, zlib: Result<Void, CompressionFailure>) throws(KringleError) {
        if case .failure(let failure) = zlib {
            throw .compressionFailed(failure)
        }
        var code: Int32 = 0
        guard let stream = kzlib_deflater_create(Int32(level), windowBits, &code) else {
            throw .compressionFailed(.zlib(code: code, message: "deflateInit2 refused"))
        }
        self.stream = stream
    }

    deinit {
        kzlib_deflater_destroy(stream)
    }

    /// Compresses `input` and returns what zlib wrote; with `finish`, also the stream's end
    /// (the gzip trailer or the Adler-32 checksum), after which the stream takes no more.
    ///
    /// Without `finish` the result may be empty: zlib keeps up to a window of input.
    func compress(_ input: Data, finish: Bool) throws(KringleError) -> Data {
        precondition(!isFinished, "a finished deflate stream takes no more input")
        let mode = finish ? Int32(KZLIB_FLUSH_FINISH) : Int32(KZLIB_FLUSH_NONE)
        return Data(
            try input.withUnsafeBytes { bytes in Result { () throws(KringleError) in try run(bytes, mode: mode) } }
                .get())
    }

    /// Compresses `input` and flushes to a byte boundary (Z_SYNC_FLUSH): the output ends with
    /// an empty stored block, `00 00 FF FF`, and the stream takes more afterwards.
    func compressFlushing(_ input: [UInt8]) throws(KringleError) -> [UInt8] {
        precondition(!isFinished, "a finished deflate stream takes no more input")
        let mode = Int32(KZLIB_FLUSH_SYNC)
        return try input.withUnsafeBytes { bytes in Result { () throws(KringleError) in try run(bytes, mode: mode) } }
            .get()
    }

    /// Forgets what came before, so that the next input is compressed without its history.
    func reset() {
        kzlib_deflater_reset(stream)
        isFinished = false
    }

    private func run(_ input: UnsafeRawBufferPointer, mode: Int32) throws(KringleError) -> [UInt8] {
        var output: [UInt8] = []
        var offset = 0
        let count = input.count
        let finish = mode == Int32(KZLIB_FLUSH_FINISH)
        let base = input.bindMemory(to: UInt8.self).baseAddress
        while true {
            var consumed = 0
            var produced = 0
            let code = scratch.withUnsafeMutableBufferPointer { out in
                kzlib_deflate(
                    stream, base.map { $0 + offset }, count - offset, &consumed, out.baseAddress, out.count, &produced,
                    mode)
            }
            offset += consumed
            output.append(contentsOf: scratch[0..<produced])
            switch code {
            case Int32(KZ_STREAM_END):
                isFinished = true
                return output
            case Int32(KZ_OK), Int32(KZ_BUF_ERROR):
                // Not finishing: done once every byte is taken and zlib had room to spare,
                // so it holds nothing more it could write now.
                if !finish && offset == count && produced < scratch.count { return output }
                // Z_BUF_ERROR with no progress at all cannot end: report it.
                if code == Int32(KZ_BUF_ERROR) && consumed == 0 && produced == 0 && offset == count && finish {
                    throw .compressionFailed(
                        .zlib(code: code, message: String(cString: kzlib_deflater_message(stream))))
                }
            default:
                throw .compressionFailed(.zlib(code: code, message: String(cString: kzlib_deflater_message(stream))))
            }
        }
    }
}
