import Foundation
import Kringle
import Testing

@testable import KringleCore

/// What a response says of its host's limits: `Retry-After` on a 429 or 503, and the
/// `RateLimit` fields of draft-ietf-httpapi-ratelimit-headers and its earlier drafts.
@Suite("Server rate limits")
struct ServerRateLimitTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var status = 200
        var fields: [(String, String)]
        var pause: TimeInterval?
        var interval: TimeInterval?
        var testDescription: String { "\(status) " + fields.map { "\($0.0): \($0.1)" }.joined(separator: ", ") }
    }

    static let now = Date(timeIntervalSince1970: 784_111_777)

    @Test(
        "pauses and paces",
        arguments: [
            Row(status: 429, fields: [("Retry-After", "5")], pause: 5),
            Row(status: 503, fields: [("Retry-After", "Sun, 06 Nov 1994 08:49:40 GMT")], pause: 3),
            Row(status: 200, fields: [("Retry-After", "5")], pause: nil),
            Row(status: 500, fields: [("Retry-After", "5")], pause: nil),
            Row(fields: [("RateLimit", #""default";r=0;t=7"#)], pause: 7),
            Row(fields: [("RateLimit", #""default";r=3;t=7"#)], pause: nil),
            Row(fields: [("RateLimit", #""burst";r=5;t=1, "daily";r=0;t=3600"#)], pause: 3600),
            Row(fields: [("RateLimit", #""burst";r=0;t=1"#), ("RateLimit", #""daily";r=9;t=3600"#)], pause: 1),
            Row(fields: [("RateLimit", "limit=100, remaining=0, reset=5")], pause: 5),
            Row(fields: [("RateLimit-Remaining", "0"), ("RateLimit-Reset", "9")], pause: 9),
            Row(fields: [("RateLimit-Remaining", "1"), ("RateLimit-Reset", "9")], pause: nil),
            Row(fields: [("RateLimit", #""a,b;c";r=0;t=2"#)], pause: 2),
            Row(status: 429, fields: [("Retry-After", "5"), ("RateLimit", #""default";r=0;t=8"#)], pause: 8),
            Row(fields: [("RateLimit", "r=abc;t=-1"), ("RateLimit", #""x";r=-1;t=4"#)], pause: nil),
            Row(fields: [("RateLimit", #""x";r=0;t=1.5"#)], pause: nil),
            Row(fields: [("RateLimit-Policy", #""default";q=50;w=1"#)], interval: 0.02),
            Row(fields: [("RateLimit-Policy", #""burst";q=100;w=60, "daily";q=1000;w=86400"#)], interval: 86.4),
            Row(fields: [("RateLimit-Policy", "100;w=60")], interval: 0.6),
            Row(fields: [("RateLimit-Policy", #""none";q=0;w=1"#)], interval: nil),
            Row(fields: [("RateLimit", ""), ("RateLimit-Policy", ";;,,=")], pause: nil),
        ])
    func read(_ row: Row) {
        var headers = HTTPHeaders()
        for (name, value) in row.fields { headers.add(name: name, value: value) }
        let limit = ServerRateLimit(status: row.status, headers: headers, now: Self.now)
        #expect(limit.pause == row.pause)
        #expect(limit.interval == row.interval)
    }
}
