import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

@Suite("Multipart form encoding")
struct MultipartEncodingTests {
    @Test("fields and files are laid out as RFC 7578 describes, files streamed from disk")
    func layout() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let photo = try scratch.write(Data("JPEGDATA".utf8), to: "IMG_0001.jpg")
        let (body, contentType) = try MultipartEncoding.body(
            for: [
                .field(name: "title", value: "Tom asleep"),
                .file(name: "photo", fileURL: photo, filename: "tom.jpg", contentType: "image/jpeg"),
            ], boundary: "XyZ")

        let expected =
            "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"title\"\r\n"
            + "\r\n"
            + "Tom asleep\r\n"
            + "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"photo\"; filename=\"tom.jpg\"\r\n"
            + "Content-Type: image/jpeg\r\n"
            + "\r\n"
            + "JPEGDATA\r\n"
            + "--XyZ--\r\n"
        #expect(contentType == "multipart/form-data; boundary=XyZ")
        #expect(String(decoding: try body.readAll(), as: UTF8.self) == expected)
        #expect(body.length == Int64(expected.utf8.count))
        // The file stays on disk until the body is read.
        let fileSegments = body.segments.compactMap { segment -> URL? in
            if case .file(let url, let size) = segment, size == 8 { return url }
            return nil
        }
        #expect(fileSegments == [photo])
    }

    @Test("a file part defaults to the file's own name and application/octet-stream")
    func fileDefaults() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let log = try scratch.write(Data("line 1\n".utf8), to: "server.log")
        let (body, _) = try MultipartEncoding.body(for: [.file(name: "log", fileURL: log)], boundary: "b")
        let text = String(decoding: try body.readAll(), as: UTF8.self)
        #expect(text.contains("Content-Disposition: form-data; name=\"log\"; filename=\"server.log\"\r\n"))
        #expect(text.contains("Content-Type: application/octet-stream\r\n\r\nline 1\n\r\n--b--\r\n"))
    }

    @Test(
        "names and filenames escape quote, CR and LF as %22, %0D and %0A",
        arguments: [
            ("plain", "plain"),
            ("say \"hi\"", "say %22hi%22"),
            ("two\r\nlines", "two%0D%0Alines"),
            ("lf\nonly", "lf%0Aonly"),
            ("cr\ronly", "cr%0Donly"),
            ("\"\r\n\"", "%22%0D%0A%22"),
            ("snowman ☃ ok", "snowman ☃ ok"),
        ])
    func escaping(raw: String, escaped: String) {
        #expect(MultipartEncoding.escaped(raw) == escaped)
    }

    @Test("escaped names cannot end the header or the part")
    func escapingInLayout() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let file = try scratch.write(Data("x".utf8), to: "a.txt")
        let (body, _) = try MultipartEncoding.body(
            for: [
                .field(name: "na\"me\r\nX-Injected: 1", value: "v"),
                .file(name: "f", fileURL: file, filename: "evil\".txt\r\n\r\n--b--", contentType: "text/plain"),
            ], boundary: "b")
        let text = String(decoding: try body.readAll(), as: UTF8.self)
        #expect(text.contains("name=\"na%22me%0D%0AX-Injected: 1\"\r\n\r\nv\r\n"))
        #expect(text.contains("filename=\"evil%22.txt%0D%0A%0D%0A--b--\"\r\n"))
        let parts = try StreamingMultipartParser.parse(try body.readAll(), boundary: "b")
        #expect(parts.map(\.name) == ["na%22me%0D%0AX-Injected: 1", "f"])
        #expect(parts.last?.filename == "evil%22.txt%0D%0A%0D%0A--b--")
    }

    @Test("the default boundary is fresh for every body and the layout parses back")
    func defaultBoundary() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let data = streamingRandomData(count: 3_000)
        let file = try scratch.write(data, to: "data.bin")
        let parts: [MultipartPart] = [
            .field(name: "a", value: "1"),
            .field(name: "b", value: "two\r\nlines"),
            .file(name: "c", fileURL: file, filename: "c.bin", contentType: "application/x-c"),
        ]
        let first = try MultipartEncoding.body(for: parts)
        let second = try MultipartEncoding.body(for: parts)
        let boundary = try #require(StreamingMultipartParser.boundary(fromContentType: first.contentType))
        #expect(boundary.hasPrefix("kringle-"))
        #expect(first.contentType != second.contentType)
        let parsed = try StreamingMultipartParser.parse(try first.body.readAll(), boundary: boundary)
        #expect(
            parsed == [
                StreamingParsedPart(name: "a", body: Data("1".utf8)),
                StreamingParsedPart(name: "b", body: Data("two\r\nlines".utf8)),
                StreamingParsedPart(name: "c", filename: "c.bin", contentType: "application/x-c", body: data),
            ])
    }

    @Test("a missing file part is a file error when the body is made")
    func missingFile() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        do {
            _ = try MultipartEncoding.body(for: [
                .field(name: "a", value: "1"),
                .file(name: "f", fileURL: scratch.file("nope.bin")),
            ])
            Issue.record("a missing file was accepted")
        } catch let error as KringleError {
            #expect(error.caseName == "file", "\(error)")
        }
    }

    @Test("RequestBody.multipart is streamed with its boundary in the Content-Type")
    func requestBodyMultipart() throws {
        let (encoded, contentType) = try RequestBody.multipart([.field(name: "a", value: "1")]).encoded(
            with: JSONEncoder())
        guard case .streamed(let body) = encoded else {
            Issue.record("a multipart body was not streamed")
            return
        }
        let boundary = try #require(StreamingMultipartParser.boundary(fromContentType: contentType))
        #expect(
            try StreamingMultipartParser.parse(try body.readAll(), boundary: boundary)
                == [StreamingParsedPart(name: "a", body: Data("1".utf8))])
    }
}
