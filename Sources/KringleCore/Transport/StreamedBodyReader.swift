import Foundation

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
