import Foundation
import KringleTestSupport
import Testing

@testable import Kringle

@Suite("Download file handling")
struct DownloadFilesTests {
    // RFC 9110 §14.4: Content-Range = range-unit SP ( range-resp / unsatisfied-range ),
    // range-resp = incl-range "/" ( complete-length / "*" ), incl-range = first-pos "-" last-pos.
    @Test(
        "RFC 9110 §14.4 Content-Range: the first byte position",
        arguments: [
            ("bytes 500-999/1000", 500),
            ("bytes 0-0/1", 0),
            ("bytes 0-999/1000", 0),
            ("bytes 21010-47021/47022", 21_010),
            ("bytes 500-999/*", 500),
            ("Bytes 7-9/10", 7),
            ("BYTES 1-2/3", 1),
            ("bytes 9223372036854775806-9223372036854775806/9223372036854775807", 9_223_372_036_854_775_806),
        ] as [(String, Int64)])
    func contentRangeStart(value: String, start: Int64) {
        #expect(DownloadFiles.contentRangeStart(value) == start)
    }

    @Test(
        "RFC 9110 §14.4 Content-Range: values without a first byte position",
        arguments: [
            "bytes */1000",
            "",
            "bytes",
            "bytes ",
            "items 500-999/1000",
            "bytes500-999/1000",
            "bytes -5-9/10",
            "bytes x-9/10",
            "bytes 99999999999999999999-1/2",
        ])
    func contentRangeStartMissing(value: String) {
        #expect(DownloadFiles.contentRangeStart(value) == nil)
    }

    @Test("no Content-Range, no start")
    func contentRangeStartNil() {
        #expect(DownloadFiles.contentRangeStart(nil) == nil)
    }

    /// A server's answer to a resumed download.
    private static func partialContent(_ contentRange: String?) -> HTTPResponse {
        var headers = HTTPHeaders()
        if let contentRange { headers["Content-Range"] = contentRange }
        return HTTPResponse(statusCode: 206, headers: headers, url: clientURL("https://files.example/dest"))
    }

    /// A download's temporary file for `destination`, holding `contents` (written through a
    /// transfer's descriptor, as a transport would).
    private static func temporary(for destination: URL, holding contents: Data) throws -> DownloadTemporaryFile {
        let temporary = try DownloadTemporaryFile(for: destination)
        let handle = try temporary.handleForTransfer()
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: contents)
        try handle.close()
        return temporary
    }

    @Test("finish moves the temporary file into place, replacing what was there")
    func finishMoves() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let destination = try scratch.write(Data("old".utf8), to: "dest")
        let temporary = try Self.temporary(for: destination, holding: Data("new contents".utf8))
        let size = try DownloadFiles.finish(
            temporary, into: destination, appendingTo: nil, at: 0, response: Self.partialContent(nil))
        #expect(size == 12)
        #expect(streamingContents(of: destination) == Data("new contents".utf8))
        #expect(scratch.entries == ["dest"])
    }

    @Test("finish appends a resumed rest to the partial file and moves that into place")
    func finishAppends() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let whole = streamingRandomData(count: 3_000_000)
        let partial = try scratch.write(whole.prefix(1_000_000), to: "dest.part")
        let destination = scratch.file("dest")
        let temporary = try Self.temporary(for: destination, holding: whole.dropFirst(1_000_000))
        let size = try DownloadFiles.finish(
            temporary, into: destination, appendingTo: partial, at: 1_000_000,
            response: Self.partialContent("bytes 1000000-2999999/3000000")
        )
        #expect(size == 3_000_000)
        #expect(streamingContents(of: destination) == whole)
        #expect(scratch.entries == ["dest"])
    }

    @Test("finish refuses a resumed rest that starts elsewhere, keeping the partial file")
    func finishRefusesWrongOffset() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let partial = try scratch.write(Data("abc".utf8), to: "dest.part")
        let destination = scratch.file("dest")
        let temporary = try Self.temporary(for: destination, holding: Data("def".utf8))
        for contentRange in ["bytes 0-5/6", "bytes */6", nil] as [String?] {
            do {
                _ = try DownloadFiles.finish(
                    temporary, into: destination, appendingTo: partial, at: 3,
                    response: Self.partialContent(contentRange))
                Issue.record("a rest at \(contentRange ?? "nil") was appended at 3")
            } catch let error as KringleError {
                #expect(error.caseName == "invalidResponse", "\(error)")
            }
            #expect(streamingContents(of: partial) == Data("abc".utf8))
            #expect(!FileManager.default.fileExists(atPath: destination.path))
        }
    }

    // Someone who can write to the directory renames the temporary file away and puts a link
    // to a file of the user's in its place: the body still went to the file the download
    // made, and the link is not moved into place.
    @Test("finish refuses to move a temporary path that no longer names the download's file")
    func finishRefusesAReplacedTemporaryFile() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let victim = try scratch.write(Data("the user's own file".utf8), to: "victim")
        let destination = scratch.file("dest")
        let temporary = try Self.temporary(for: destination, holding: Data("body".utf8))
        #expect(temporary.isAtItsPath)
        #expect(rename(temporary.url.path, scratch.file("moved").path) == 0)
        try FileManager.default.createSymbolicLink(at: temporary.url, withDestinationURL: victim)
        #expect(!temporary.isAtItsPath)
        do {
            _ = try DownloadFiles.finish(
                temporary, into: destination, appendingTo: nil, at: 0, response: Self.partialContent(nil))
            Issue.record("the replaced temporary path was moved into place")
        } catch KringleError.file(let url, let underlying) {
            #expect(url == temporary.url)
            #expect(underlying is KringleError.TemporaryFileReplaced)
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(streamingContents(of: victim) == Data("the user's own file".utf8))
        #expect(streamingContents(of: scratch.file("moved")) == Data("body".utf8))
        temporary.remove()  // not ours any more: left alone
        #expect(FileManager.default.fileExists(atPath: temporary.url.path))
    }
}
