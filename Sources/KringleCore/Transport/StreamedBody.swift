import Foundation

/// A request body sent in chunks from memory and files, never read whole: an upload from
/// a file, or a multipart form with file parts.
///
/// It can be read again from the start, so a redirect that keeps the body (307, 308) or a
/// retry sends it anew.
public struct StreamedBody: Sendable {
    /// One piece of the body.
    public enum Segment: Sendable {
        /// Bytes in memory.
        case data(Data)
        /// A whole file, read in chunks.
        case file(URL, size: Int64)
    }

    /// The pieces, in order.
    public var segments: [Segment]
    /// How the reader compresses the pieces as it reads them (an endpoint's
    /// ``Endpoint/compression``), or `nil` to send them as they are.
    package var compression: RequestCompression?
    /// For a compressed body: how many bytes of the pieces the latest reader has read (for
    /// progress in terms of the file rather than of the unknown compressed length) and
    /// handed out compressed (for the log).
    var compressionCounter: CompressionCounter?

    /// Creates a body from its pieces.
    public init(segments: [Segment]) {
        self.segments = segments
    }

    /// A body that is one file.
    ///
    /// - Throws: ``KringleError/file(_:underlying:)`` when the file is missing, a directory or
    ///   unreadable; ``KringleError/invalidRequest(_:)`` when `url` is not a file URL.
    public static func file(_ url: URL) throws -> StreamedBody {
        StreamedBody(segments: [.file(url, size: try StreamedBody.size(ofReadableFile: url))])
    }

    /// The total length of the pieces in bytes, before any compression.
    public var length: Int64 {
        segments.reduce(0) { total, segment in
            switch segment {
            case .data(let data): return total + Int64(data.count)
            case .file(_, let size): return total + size
            }
        }
    }

    /// The number of bytes sent: ``length``, or `nil` for a compressed body, whose length is
    /// known only once it has been read (it goes without `Content-Length`: chunked, over
    /// HTTP/1.1, RFC 9112 §7.1).
    var wireLength: Int64? {
        compression == nil ? length : nil
    }

    /// The same body, compressed as it is read.
    func compressed(_ compression: RequestCompression) -> StreamedBody {
        var copy = self
        copy.compression = compression
        copy.compressionCounter = CompressionCounter()
        return copy
    }

    /// A reader positioned at the start.
    public func makeReader() -> StreamedBodyReader {
        compressionCounter?.restart()
        return StreamedBodyReader(segments: segments, compression: compression, counter: compressionCounter)
    }

    /// The bytes all at once: for transports that cannot stream.
    public func readAll() throws -> Data {
        var reader = makeReader()
        var data = Data()
        while let chunk = try reader.read(upTo: 1 << 20) { data.append(chunk) }
        return data
    }

    /// The size of a regular, readable file.
    package static func size(ofReadableFile url: URL) throws -> Int64 {
        guard url.isFileURL else {
            throw KringleError.invalidRequest("\(url.absoluteString) is not a file URL.")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw KringleError.file(url, underlying: POSIXError(.ENOENT))
        }
        guard !isDirectory.boolValue else {
            throw KringleError.file(url, underlying: POSIXError(.EISDIR))
        }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw KringleError.file(url, underlying: POSIXError(.EACCES))
        }
        do {
            let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber
            return size?.int64Value ?? 0
        } catch {
            throw KringleError.file(url, underlying: error)
        }
    }
}
