import Foundation
import Kringle
import Testing

@testable import KringleCore

/// RFC 9110 §13.1.5: If-Range carries a strong validator only.
@Suite("RFC 9110 §13.1.5 If-Range validators")
struct ResumeValidatorTests {
    @Test(
        "§8.8.3 entity tags: strong ones are kept as sent, weak and malformed ones refused",
        arguments: [
            ("\"xyzzy\"", true),
            ("\"\"", true),
            ("\"r2d2xxxx\"", true),
            ("\"caf\u{E9}\"", true),  // obs-text
            ("W/\"xyzzy\"", false),
            ("xyzzy", false),
            ("\"xyzzy", false),
            ("\"", false),
            ("\"a\"b\"", false),
            ("\"a b\"", false),
            ("\"a\r\nX-Injected: 1\"", false),
        ])
    func entityTags(tag: String, isStrong: Bool) {
        let validator = ResumeValidator(entityTag: tag)
        #expect((validator != nil) == isStrong)
        #expect(validator.map { $0.kind == .entityTag && $0.value == tag } ?? true)
    }

    @Test("§8.8.2 Last-Modified: a date, without control characters")
    func lastModified() throws {
        let validator = try #require(ResumeValidator(lastModified: "Wed, 21 Oct 2015 07:28:00 GMT"))
        #expect(validator.kind == .lastModified)
        #expect(validator.value == "Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(validator.description == "Last-Modified Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(ResumeValidator(lastModified: "yesterday") == nil)
        #expect(ResumeValidator(lastModified: "Wed, 21 Oct 2015 07:28:00 GMT\r\nX: 1") == nil)
    }

    @Test(
        "§13.1.5: a response's strong ETag, else its Last-Modified when §8.8.2.2 makes it strong",
        arguments: [
            ([("ETag", "\"v1\""), ("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")], "ETag \"v1\""),
            ([("ETag", "W/\"v1\""), ("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")], nil),
            (
                [("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT"), ("Date", "Wed, 21 Oct 2015 07:28:01 GMT")],
                "Last-Modified Wed, 21 Oct 2015 07:28:00 GMT"
            ),
            ([("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT"), ("Date", "Wed, 21 Oct 2015 07:28:00 GMT")], nil),
            ([("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")], nil),
            ([("Date", "Wed, 21 Oct 2015 07:28:00 GMT")], nil),
            ([("ETag", "unquoted")], nil),
        ] as [([(String, String)], String?)])
    func fromHeaders(fields: [(String, String)], expected: String?) {
        #expect(ResumeValidator(headers: HTTPHeaders(fields))?.description == expected)
    }

    @Test("§15.3.7: a 206's own validator contradicts a different one, its absence nothing")
    func contradiction() throws {
        let tag = try #require(ResumeValidator(entityTag: "\"v1\""))
        #expect(!tag.isContradicted(by: HTTPHeaders([("ETag", "\"v1\"")])))
        #expect(tag.isContradicted(by: HTTPHeaders([("ETag", "\"v2\"")])))
        #expect(tag.isContradicted(by: HTTPHeaders([("ETag", "W/\"v1\"")])))
        #expect(!tag.isContradicted(by: HTTPHeaders()))
        let date = try #require(ResumeValidator(lastModified: "Wed, 21 Oct 2015 07:28:00 GMT"))
        #expect(!date.isContradicted(by: HTTPHeaders([("Last-Modified", "Wednesday, 21-Oct-15 07:28:00 GMT")])))
        #expect(date.isContradicted(by: HTTPHeaders([("Last-Modified", "Thu, 22 Oct 2015 07:28:00 GMT")])))
    }
}
