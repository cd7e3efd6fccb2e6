import Foundation
import KringleTesting
import Testing

@Suite("HAR 1.2 model")
struct HARTests {
    /// A log as a tool might write it: custom fields at several levels, fields Kringle does not
    /// write (pages, params), numbers with and without fractions.
    static let toolLog = #"""
        {"log": {"version": "1.2", "creator": {"name": "Tool", "version": "9", "_build": 7},
          "pages": [{"startedDateTime": "2024-05-01T10:00:00.000Z", "id": "page_1", "title": "Cats",
                     "pageTimings": {"onContentLoad": 120.5, "onLoad": 300}}],
          "_exportedBy": {"user": "tom", "tags": ["a", null, true]},
          "entries": [{"pageref": "page_1", "startedDateTime": "2024-05-01T10:00:00.123Z", "time": 42.25,
            "_resourceType": "fetch",
            "request": {"method": "POST", "url": "https://cats.example/feed?b=2&a=1", "httpVersion": "HTTP/2",
              "cookies": [], "headers": [{"name": "content-type", "value": "application/x-www-form-urlencoded"}],
              "queryString": [{"name": "b", "value": "2"}, {"name": "a", "value": "1"}],
              "postData": {"mimeType": "application/x-www-form-urlencoded",
                           "params": [{"name": "food", "value": "fish & chips"}]},
              "headersSize": -1, "bodySize": 19},
            "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/2", "cookies": [],
              "headers": [], "content": {"size": 11, "compression": 5, "mimeType": "text/plain", "text": "hello there",
              "_cached": false}, "redirectURL": "", "headersSize": -1, "bodySize": 6},
            "cache": {}, "timings": {"send": 1, "wait": 40, "receive": 1.25}}]}}
        """#

    @Test("reads every field, custom fields kept and written back")
    func customFieldsSurvive() throws {
        let archive = try JSONDecoder().decode(HAR.Archive.self, from: Data(Self.toolLog.utf8))
        let entry = try #require(archive.log.entries.first)
        #expect(
            archive.log.custom["_exportedBy"]
                == .object(["user": .string("tom"), "tags": .array([.string("a"), .null, .bool(true)])]))
        #expect(archive.log.creator.custom["_build"] == .number(7))
        #expect(archive.log.pages?.first?.id == "page_1")
        #expect(entry.custom["_resourceType"] == .string("fetch"))
        #expect(entry.response.content.custom["_cached"] == .bool(false))
        #expect(entry.response.content.compression == 5)
        #expect(entry.time == 42.25)
        #expect(entry.request.postData?.params?.first?.value == "fish & chips")
        #expect(try entry.request.postData?.body() == Data("food=fish%20%26%20chips".utf8))

        let written = try archive.encoded()
        let again = try JSONDecoder().decode(HAR.Archive.self, from: written)
        #expect(again == archive)
        // Integral numbers stay integers for readers that insist.
        #expect(String(decoding: written, as: UTF8.self).contains(#""_build" : 7"#))
    }

    @Test(
        "a body that is not UTF-8 (or holds a NUL) is written in base64, and read back",
        arguments: [
            (Data("plain text ✓".utf8), true), (Data([0xFF, 0xFE, 0x00, 0x01]), false),
            (Data("with\u{0}nul".utf8), false), (Data(), true),
        ])
    func bodies(body: Data, isText: Bool) throws {
        let content = HAR.Content(body: body, mimeType: "application/octet-stream")
        #expect(content.size == body.count)
        #expect(content.encoding == (isText ? nil : "base64"))
        #expect(try content.body() == body)
        let post = HAR.PostData(body: body, mimeType: "application/octet-stream")
        #expect(try post.body() == body)
    }

    @Test("append keeps what the file held and writes atomically")
    func appendKeepsEntries() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("har-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("nested/cassette.har")
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(Self.toolLog.utf8).write(to: file)
        let entry = HAR.Entry(
            startedDateTime: HAR.string(from: Date(timeIntervalSince1970: 0)), time: 1,
            request: HAR.Request(method: "GET", url: "https://cats.example/"),
            response: HAR.Response(status: 204))
        try HAR.Archive.append([entry, entry], to: file)
        let archive = try HAR.Archive.read(from: file)
        #expect(archive.log.entries.count == 3)
        #expect(archive.log.entries[0].custom["_resourceType"] == .string("fetch"))
        #expect(archive.log.custom["_exportedBy"] != nil)
        #expect(archive.log.entries[2] == entry)
        // No temporary file left beside it.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path) == [
                "cassette.har"
            ])
    }

    @Test("appending to a file that is not HAR fails and leaves it untouched")
    func appendToGarbage() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("har-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("not json".utf8).write(to: file)
        #expect(throws: CassetteError.self) {
            try HAR.Archive.append([], to: file)
        }
        #expect(try Data(contentsOf: file) == Data("not json".utf8))
    }

    @Test("dates are ISO 8601 with milliseconds, and read with or without them")
    func dates() {
        let date = Date(timeIntervalSince1970: 1_714_557_600.123)
        #expect(HAR.string(from: date) == "2024-05-01T10:00:00.123Z")
        #expect(HAR.string(from: Date(timeIntervalSince1970: 0.0499)) == "1970-01-01T00:00:00.050Z")
        #expect(HAR.string(from: Date(timeIntervalSince1970: -0.25)) == "1969-12-31T23:59:59.750Z")
        #expect(HAR.string(from: Date(timeIntervalSince1970: 59.9996)) == "1970-01-01T00:01:00.000Z")
        #expect(HAR.date(from: "2024-05-01T12:00:00+02:00") == Date(timeIntervalSince1970: 1_714_557_600))
        #expect(
            abs((HAR.date(from: "2024-05-01T10:00:00.123Z")?.timeIntervalSince1970 ?? 0) - 1_714_557_600.123) < 0.001)
    }

    @Test("a file set together from each entry's own encoding is byte for byte the archive's encoding")
    func encodedFromFragments() throws {
        var archive = try JSONDecoder().decode(HAR.Archive.self, from: Data(Self.toolLog.utf8))
        // A custom field with an `entries` key of its own, and entries with empty arrays,
        // strings holding line breaks, and a body in base64.
        archive.log.custom["_nested"] = .object(["entries": .array([]), "note": .string("two\nlines")])
        var second = try #require(archive.log.entries.first)
        second.request.headers = []
        second.response.content = HAR.Content(body: Data([0, 1, 2, 255]), mimeType: "application/octet-stream")
        second.comment = "line one\nline two"
        archive.log.entries += [second, second]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]

        let whole = try encoder.encode(archive)
        #expect(String(decoding: try archive.encoded(), as: UTF8.self) == String(decoding: whole, as: UTF8.self))
        archive.log.entries = []
        #expect(try archive.encoded() == encoder.encode(archive))
    }
}
