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
    init(
        _ coding: RequestCompression.Coding, level: Int, zlib: Result<Void, CompressionFailure> = Zlib.load()
    ) throws(KringleError) {
        if case .failure(let failure) = zlib {
            throw .compressionFailed(failure)
        }
        let windowBits: Int32 =
            switch coding {
            case .gzip: 15 + 16
            case .deflate: 15
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
        var output = Data()
        var offset = 0
        let count = input.count
        while true {
            var consumed = 0
            var produced = 0
            let code = input.withUnsafeBytes { raw in
                let base = raw.bindMemory(to: UInt8.self).baseAddress.map { $0 + offset }
                return scratch.withUnsafeMutableBufferPointer { out in
                    kzlib_deflate(
                        stream, base, count - offset, &consumed, out.baseAddress, out.count, &produced,
                        finish ? 1 : 0)
                }
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
