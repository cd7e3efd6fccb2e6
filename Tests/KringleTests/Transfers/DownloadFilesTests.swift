import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

@Suite("Download file handling")
struct DownloadFilesTests {
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

    struct RestCase: Sendable, CustomTestStringConvertible {
        let name: String
        let headers: [(String, String)]
        let received: Int64
        /// What the refusal's reason says, or `nil` when the rest is accepted.
        let refusal: String?
        var testDescription: String { name }
    }

    // The partial file holds bytes 0-99 of a 1000-byte file; the rest was asked for with
    // `Range: bytes=100-` and `If-Range: "v1"`.
    @Test(
        "RFC 9110 §14.4 and §15.3.7: only exactly the rest of the file is appended",
        arguments: [
            RestCase(name: "the rest", headers: [("Content-Range", "bytes 100-999/1000")], received: 900, refusal: nil),
            RestCase(
                name: "the rest, length unknown", headers: [("Content-Range", "bytes 100-999/*")], received: 900,
                refusal: nil),
            RestCase(
                name: "the rest, same ETag", headers: [("Content-Range", "bytes 100-999/1000"), ("ETag", "\"v1\"")],
                received: 900, refusal: nil),
            RestCase(
                name: "identity coding",
                headers: [("Content-Range", "bytes 100-999/1000"), ("Content-Encoding", "Identity")],
                received: 900, refusal: nil),
            RestCase(
                name: "the issue's case: past the end, with far more body",
                headers: [("Content-Range", "bytes 100-199/50")], received: 10 << 20,
                refusal: "Content-Range bytes 100-199/50"),
            RestCase(
                name: "another start", headers: [("Content-Range", "bytes 90-999/1000")], received: 910,
                refusal: "not at byte 100"),
            RestCase(
                name: "stops before the end", headers: [("Content-Range", "bytes 100-199/1000")], received: 100,
                refusal: "stops before the end"),
            RestCase(
                name: "more body than the range", headers: [("Content-Range", "bytes 100-999/1000")], received: 901,
                refusal: "but sent 901 bytes"),
            RestCase(
                name: "less body than the range (length unknown)", headers: [("Content-Range", "bytes 100-999/*")],
                received: 10, refusal: "but sent 10 bytes"),
            RestCase(
                name: "no Content-Range (multipart)", headers: [], received: 900, refusal: "Content-Range missing"),
            RestCase(
                name: "unsatisfied range", headers: [("Content-Range", "bytes */1000")], received: 0,
                refusal: "Content-Range bytes */1000"),
            RestCase(
                name: "content-coded",
                headers: [("Content-Range", "bytes 100-999/1000"), ("Content-Encoding", "gzip")],
                received: 900, refusal: "Content-Encoding gzip"),
            RestCase(
                name: "another version", headers: [("Content-Range", "bytes 100-999/1000"), ("ETag", "\"v2\"")],
                received: 900, refusal: "another version"),
        ])
    func checkRest(_ row: RestCase) throws {
        let response = HTTPResponse(
            statusCode: 206, headers: HTTPHeaders(row.headers), url: clientURL("https://files.example/dest"))
        let validator = try #require(ResumeValidator(entityTag: "\"v1\""))
        do {
            try DownloadFiles.checkRest(response, startingAt: 100, received: row.received, validator: validator)
            #expect(row.refusal == nil, "accepted")
        } catch {
            guard case .invalidResponse(let kept, let reason) = error, let refusal = row.refusal else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reason.contains(refusal), "\(reason)")
            #expect(reason.contains("partial file was left as it was"), "\(reason)")
            #expect(kept.statusCode == 206)
        }
    }

    @Test("a refused rest leaves the partial file and the temporary file's bytes alone")
    func finishRefusesATooLongRest() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let partial = try scratch.write(Data(repeating: 1, count: 100), to: "dest.part")
        let destination = scratch.file("dest")
        let temporary = try Self.temporary(for: destination, holding: Data(repeating: 2, count: 1_000))
        #expect(throws: KringleError.self) {
            _ = try DownloadFiles.finish(
                temporary, into: destination, appendingTo: partial, at: 100,
                response: Self.partialContent("bytes 100-199/50"))
        }
        #expect(streamingContents(of: partial) == Data(repeating: 1, count: 100))
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }
}
