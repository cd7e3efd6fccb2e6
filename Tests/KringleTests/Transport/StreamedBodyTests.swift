import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

@Suite("StreamedBody and its reader")
struct StreamedBodyTests {
    /// A body of every kind of segment: data, a slice of data (non-zero start index), empty
    /// data, files, an empty file. Returns the body and the bytes it must read as.
    private static func mixedBody(in scratch: StreamingScratchDirectory) throws -> (StreamedBody, Data) {
        let small = try scratch.write(streamingRandomData(count: 300, seed: 1), to: "small.bin")
        let empty = try scratch.write(Data(), to: "empty.bin")
        let large = try scratch.write(streamingRandomData(count: 5_000, seed: 2), to: "large.bin")
        let backing = Data("0123456789abcdefghij".utf8)
        let slice = backing[5..<15]
        let segments: [StreamedBody.Segment] = [
            .data(Data("head-".utf8)),
            .file(small, size: 300),
            .data(Data()),
            .data(slice),
            .file(empty, size: 0),
            .file(large, size: 5_000),
            .data(Data("-tail".utf8)),
        ]
        var expected = Data("head-".utf8)
        expected.append(streamingRandomData(count: 300, seed: 1))
        expected.append(Data("56789abcde".utf8))
        expected.append(streamingRandomData(count: 5_000, seed: 2))
        expected.append(Data("-tail".utf8))
        return (StreamedBody(segments: segments), expected)
    }

    @Test(
        "the reader returns every byte in order, in chunks of at most the size asked for",
        arguments: [1, 2, 3, 7, 64, 299, 300, 301, 4_096, 1 << 20])
    func readsMixedSegments(chunkSize: Int) throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let (body, expected) = try Self.mixedBody(in: scratch)
        var reader = body.makeReader()
        var read = Data()
        var chunkSizes: [Int] = []
        while let chunk = try reader.read(upTo: chunkSize) {
            chunkSizes.append(chunk.count)
            read.append(chunk)
            if chunkSizes.count > expected.count { break }  // a reader that never ends
        }
        #expect(read == expected)
        #expect(chunkSizes.allSatisfy { $0 > 0 && $0 <= chunkSize }, "\(chunkSizes.prefix(20))")
        // The end stays the end.
        #expect(try reader.read(upTo: chunkSize) == nil)
    }

    @Test("length adds up data sizes and recorded file sizes")
    func length() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let (body, expected) = try Self.mixedBody(in: scratch)
        #expect(body.length == Int64(expected.count))
        #expect(StreamedBody(segments: []).length == 0)
        #expect(StreamedBody(segments: [.data(Data())]).length == 0)
        // The recorded size counts, not the file on disk (it is read when the body is made).
        #expect(
            StreamedBody(segments: [.file(scratch.file("small.bin"), size: 42), .data(Data(count: 8))]).length == 50)
    }

    @Test("readAll gives the whole body, and every new reader starts from the beginning")
    func rereadable() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let (body, expected) = try Self.mixedBody(in: scratch)
        #expect(try body.readAll() == expected)
        var first = body.makeReader()
        let firstChunk = try first.read(upTo: 10)
        var second = body.makeReader()
        #expect(firstChunk == Data("head-".utf8))
        #expect(try second.read(upTo: 10) == firstChunk)
        #expect(try body.readAll() == expected)
    }

    @Test("an empty body reads as nothing")
    func emptyBody() throws {
        var reader = StreamedBody(segments: [.data(Data())]).makeReader()
        #expect(try reader.read(upTo: 16) == nil)
        #expect(try StreamedBody(segments: []).readAll() == Data())
    }

    @Test("StreamedBody.file records the size of an existing file")
    func fileBody() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let data = streamingRandomData(count: 12_345)
        let url = try scratch.write(data, to: "upload.bin")
        let body = try StreamedBody.file(url)
        #expect(body.length == 12_345)
        #expect(try body.readAll() == data)
    }

    @Test(
        "StreamedBody.file rejects a missing file and a directory with a file error, a non-file URL with invalidRequest"
    )
    func fileBodyErrors() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let candidates: [(URL, POSIXErrorCode?)] = [
            (scratch.file("missing.bin"), .ENOENT),
            (scratch.url, .EISDIR),
            (URL(string: "https://example.com/file.bin") ?? scratch.url, nil),
        ]
        for (url, code) in candidates {
            #expect(throws: KringleError.self, "\(url)") { try StreamedBody.file(url) }
            do {
                _ = try StreamedBody.file(url)
            } catch KringleError.file(let failed, let underlying) {
                #expect(failed == url)
                #expect((underlying as? POSIXError)?.code == code, "\(url): \(underlying)")
            } catch let error as KringleError {
                #expect(code == nil && error.caseName == "invalidRequest", "\(url): \(error)")
            }
        }
    }

    @Test("a file removed after the body was made fails the read with a file error")
    func fileRemovedBeforeReading() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let url = try scratch.write(Data(count: 100), to: "gone.bin")
        let body = try StreamedBody.file(url)
        try FileManager.default.removeItem(at: url)
        var reader = body.makeReader()
        do {
            _ = try reader.read(upTo: 10)
            Issue.record("reading a removed file succeeded")
        } catch let error as KringleError {
            #expect(error.caseName == "file", "\(error)")
        }
    }

    // A file whose size no longer matches would make the body disagree with `length`, which
    // is the Content-Length already sent.
    @Test("a file that shrank after the body was made fails the read with a file error")
    func fileShrankBeforeReading() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let url = try scratch.write(Data(count: 100), to: "shrinking.bin")
        let body = try StreamedBody.file(url)
        try Data(count: 40).write(to: url)
        do {
            _ = try body.readAll()
            Issue.record("the body promised 100 bytes; the file now has 40")
        } catch KringleError.file(let failed, let underlying) {
            #expect(failed == url)
            #expect(
                underlying as? KringleError.FileSizeChanged == KringleError.FileSizeChanged(expected: 100, found: 40))
        }
    }

    @Test("a file that grew after the body was made fails the read with a file error")
    func fileGrewBeforeReading() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let url = try scratch.write(Data(count: 100), to: "growing.bin")
        let body = StreamedBody(segments: [.file(url, size: 100), .data(Data("after".utf8))])
        try Data(count: 150).write(to: url)
        for chunkSize in [7, 100, 1 << 20] {
            var reader = body.makeReader()
            var read = 0
            do {
                while let chunk = try reader.read(upTo: chunkSize) { read += chunk.count }
                Issue.record("read \(read) bytes of a body of length 105 (chunks of \(chunkSize))")
            } catch KringleError.file(let failed, let underlying) {
                #expect(failed == url)
                #expect((underlying as? KringleError.FileSizeChanged)?.expected == 100, "\(underlying)")
                #expect(read <= 100, "no byte beyond the recorded size is handed out")
            }
        }
    }

    @Test("the same file twice in one body is read whole both times")
    func sameFileTwice() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let data = streamingRandomData(count: 1_000, seed: 3)
        let url = try scratch.write(data, to: "twice.bin")
        let body = StreamedBody(segments: [.file(url, size: 1_000), .data(Data("|".utf8)), .file(url, size: 1_000)])
        #expect(try body.readAll() == data + Data("|".utf8) + data)
    }
}
