import CCurlShim
import Foundation

/// Feeds a ``KringleCore/StreamedBody`` to curl's read callback, chunk by chunk, and rewinds
/// it when curl must send the request again (a reused connection that turned out closed).
///
/// Confined to the driving thread, like every curl callback.
final class UploadSource {
    private let body: StreamedBody
    private var reader: StreamedBodyReader
    /// Why reading stopped, reported instead of curl's generic "aborted by callback".
    private(set) var failure: (any Error)?

    init(_ body: StreamedBody) {
        self.body = body
        reader = body.makeReader()
    }

    /// Fills `buffer` with the next bytes; returns how many (0 at the end), or curl's abort
    /// value when the body cannot be read.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard failure == nil else { return Int(KCURL_READFUNC_ABORT) }
        do {
            guard let chunk = try reader.read(upTo: buffer.count) else { return 0 }
            chunk.copyBytes(to: buffer)
            return chunk.count
        } catch {
            failure = error
            return Int(KCURL_READFUNC_ABORT)
        }
    }

    /// Starts again from the first byte; only that position is supported.
    func seek(to offset: Int64, origin: Int32) -> Int32 {
        guard offset == 0, origin == SEEK_SET else { return Int32(KCURL_SEEKFUNC_CANTSEEK) }
        reader = body.makeReader()
        return Int32(KCURL_SEEKFUNC_OK)
    }
}
