import Foundation
import Synchronization

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
    var compression: RequestCompression?
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
    static func size(ofReadableFile url: URL) throws -> Int64 {
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

/// Reads a ``StreamedBody`` front to back in chunks (compressed, when the body is).
public struct StreamedBodyReader {
    private var segments: ArraySlice<StreamedBody.Segment>
    private var offsetInData = 0
    private var file: FileHandle?
    private var readFromFile: Int64 = 0
    /// For a compressed body: the coding, its stream once reading began, and what it wrote
    /// that has not been read yet.
    private let compression: RequestCompression?
    private var deflater: Deflater?
    private var compressed = Data()
    private let counter: CompressionCounter?

    init(
        segments: [StreamedBody.Segment], compression: RequestCompression? = nil, counter: CompressionCounter? = nil
    ) {
        self.segments = segments[...]
        self.compression = compression
        self.counter = counter
    }

    /// The next chunk of at most `maximum` bytes, or `nil` at the end.
    ///
    /// - Throws: ``KringleError/file(_:underlying:)`` when a file cannot be read, or has
    ///   changed size since the body was made (``KringleError/FileSizeChanged``);
    ///   ``KringleError/compressionFailed(_:)`` when the body cannot be compressed.
    public mutating func read(upTo maximum: Int) throws -> Data? {
        guard let compression else { return try readSegments(upTo: maximum) }
        // Reads the pieces a source chunk at a time and hands out what zlib wrote, so that
        // neither the input nor the output is ever held whole.
        while compressed.isEmpty {
            let deflater = try self.deflater ?? Deflater(compression.coding, level: compression.level)
            self.deflater = deflater
            if deflater.isFinished { return nil }
            if let chunk = try readSegments(upTo: Self.sourceChunk) {
                counter?.read(chunk.count)
                compressed = try deflater.compress(chunk, finish: false)
            } else {
                compressed = try deflater.compress(Data(), finish: true)
            }
        }
        let chunk = compressed.prefix(maximum)
        compressed = compressed.count > maximum ? compressed.suffix(from: chunk.endIndex) : Data()
        counter?.wrote(chunk.count)
        return chunk
    }

    /// How much of the source a compressed body reads at a time.
    private static let sourceChunk = 64 * 1024

    /// The pieces' next chunk of at most `maximum` bytes, or `nil` at the end.
    private mutating func readSegments(upTo maximum: Int) throws -> Data? {
        while let segment = segments.first {
            switch segment {
            case .data(let data):
                if offsetInData < data.count {
                    let end = min(data.count, offsetInData + maximum)
                    defer { offsetInData = end }
                    return data.subdata(in: (data.startIndex + offsetInData)..<(data.startIndex + end))
                }
            case .file(let url, let size):
                if file == nil {
                    do {
                        file = try FileHandle(forReadingFrom: url)
                    } catch {
                        throw KringleError.file(url, underlying: error)
                    }
                }
                if let handle = file {
                    let chunk: Data?
                    do {
                        chunk = try handle.read(upToCount: maximum)
                    } catch {
                        throw KringleError.file(url, underlying: error)
                    }
                    if let chunk, !chunk.isEmpty {
                        readFromFile += Int64(chunk.count)
                        guard readFromFile <= size else {
                            throw KringleError.file(
                                url, underlying: KringleError.FileSizeChanged(expected: size, found: readFromFile))
                        }
                        return chunk
                    }
                    try? handle.close()
                    file = nil
                    guard readFromFile == size else {
                        throw KringleError.file(
                            url, underlying: KringleError.FileSizeChanged(expected: size, found: readFromFile))
                    }
                    readFromFile = 0
                }
            }
            segments = segments.dropFirst()
            offsetInData = 0
        }
        return nil
    }
}

/// What the latest reader of a compressed body has done: bytes of its pieces read, and
/// compressed bytes handed out; read by the upload's progress reporter and the log on
/// other threads.
final class CompressionCounter: Sendable {
    private let source = Atomic<Int64>(0)
    private let output = Atomic<Int64>(0)

    /// Bytes of the pieces read, before compression.
    var bytesRead: Int64 { source.load(ordering: .relaxed) }
    /// Compressed bytes handed out to be sent.
    var bytesWritten: Int64 { output.load(ordering: .relaxed) }

    func read(_ count: Int) {
        source.add(Int64(count), ordering: .relaxed)
    }

    func wrote(_ count: Int) {
        output.add(Int64(count), ordering: .relaxed)
    }

    /// A new reader starts from the first byte (a retry, a 307 redirect).
    func restart() {
        source.store(0, ordering: .relaxed)
        output.store(0, ordering: .relaxed)
    }
}
