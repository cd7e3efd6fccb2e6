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

    @Test("create makes an empty file only its owner can read")
    func create() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let url = scratch.file(".x.kringle-download")
        try DownloadFiles.create(url)
        #expect(DownloadFiles.size(url) == 0)
        let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber
        #expect(permissions?.intValue == 0o600)
        // In a directory that does not exist: a file error naming the file, with the reason.
        let missing = scratch.file("missing-dir/file")
        do {
            try DownloadFiles.create(missing)
            Issue.record("a file was created in a missing directory")
        } catch KringleError.file(let url, let underlying) {
            #expect(url == missing)
            #expect((underlying as? POSIXError)?.code == .ENOENT, "\(underlying)")
        }
    }

    @Test("create never reuses a file that is already there")
    func createRefusesAnExistingFile() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let existing = try scratch.write(Data("someone else's".utf8), to: ".x.kringle-download")
        #expect(throws: KringleError.self) { try DownloadFiles.create(existing) }
        #expect(streamingContents(of: existing) == Data("someone else's".utf8))
    }

    /// A server's answer to a resumed download.
    private static func partialContent(_ contentRange: String?) -> HTTPResponse {
        var headers = HTTPHeaders()
        if let contentRange { headers["Content-Range"] = contentRange }
        return HTTPResponse(statusCode: 206, headers: headers, url: clientURL("https://files.example/dest"))
    }

    @Test("finish moves the temporary file into place, replacing what was there")
    func finishMoves() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let temporary = try scratch.write(Data("new contents".utf8), to: ".dest.kringle-download")
        let destination = try scratch.write(Data("old".utf8), to: "dest")
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
        let temporary = try scratch.write(whole.dropFirst(1_000_000), to: ".dest.kringle-download")
        let destination = scratch.file("dest")
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
        let temporary = try scratch.write(Data("def".utf8), to: ".dest.kringle-download")
        let destination = scratch.file("dest")
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
}
