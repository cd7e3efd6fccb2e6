import Foundation
import Kringle
import Testing

@testable import KringleCore

// RFC 9110 §14.4: Content-Range = range-unit SP ( range-resp / unsatisfied-range ),
// range-resp = incl-range "/" ( complete-length / "*" ), incl-range = first-pos "-" last-pos.
@Suite("RFC 9110 §14.4 Content-Range")
struct ContentRangeTests {
    @Test(
        "§14.4 range-resp: first, last and complete length",
        arguments: [
            ("bytes 500-999/1000", 500, 999, 1000),
            ("bytes 0-0/1", 0, 0, 1),
            ("bytes 21010-47021/47022", 21_010, 47_021, 47_022),
            ("bytes 500-999/*", 500, 999, nil),
            ("Bytes 7-9/10", 7, 9, 10),
            ("BYTES 1-2/3", 1, 2, 3),
            ("bytes 9223372036854775806-9223372036854775806/9223372036854775807", .max - 1, .max - 1, .max),
        ] as [(String, Int64, Int64, Int64?)])
    func valid(value: String, first: Int64, last: Int64, complete: Int64?) throws {
        let range = try #require(ContentRange(value))
        #expect(range == ContentRange(first: first, last: last, completeLength: complete))
        #expect(range.count == last - first + 1)
    }

    @Test(
        "§14.4: not a satisfied byte range",
        arguments: [
            "bytes */1000",  // unsatisfied-range: a 416's
            "",
            "bytes",
            "bytes ",
            "items 500-999/1000",
            "bytes500-999/1000",
            "bytes -5-9/10",
            "bytes x-9/10",
            "bytes 5-/10",
            "bytes 5-9",
            "bytes 5-9/",
            "bytes 5-9/10 ",
            " bytes 5-9/10",
            "bytes  5-9/10",
            "bytes 5-9/1x",
            "bytes 9-5/10",  // last before first: invalid
            "bytes 100-199/50",  // ends past the complete length: invalid
            "bytes 0-10/10",
            "bytes 99999999999999999999-1/2",
            "bytes 0-9223372036854775808/*",
        ])
    func invalid(value: String) {
        #expect(ContentRange(value) == nil)
    }
}
