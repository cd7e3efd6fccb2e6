import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

/// Shared helpers for the cookie tests: a pinned clock, fixture paths, URL literals.
enum TestSupport {
    /// 2013-01-01T12:00:00Z, the clock of the http-state suite and of most tests.
    static let now = Date(timeIntervalSince1970: 1_357_041_600)

    /// `Tests/KringleTests/Fixtures`, found next to this source file so the tests never
    /// depend on the working directory or on files outside the package.
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Cookies
        .deletingLastPathComponent()  // KringleTests
        .appendingPathComponent("Fixtures", isDirectory: true)

    /// A URL from a literal; records an issue (instead of crashing) if it is invalid.
    static func url(_ string: String, sourceLocation: SourceLocation = #_sourceLocation) -> URL {
        guard let url = URL(string: string) else {
            Issue.record("invalid URL literal \(string)", sourceLocation: sourceLocation)
            return URL(fileURLWithPath: "/")
        }
        return url
    }

    /// A fresh, empty temporary directory for one test.
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("KringleCookieTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Deletes a temporary directory made by ``temporaryDirectory()``.
    static func remove(_ directory: URL) {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A UTC date from its parts.
    static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0)
        -> Date
    {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard let date = calendar.date(from: components) else {
            Issue.record("invalid date \(year)-\(month)-\(day)")
            return .distantPast
        }
        return date
    }
}

extension CookieJar {
    /// Stores headers from a URL literal at a given time (default: the pinned clock).
    func store(_ headers: String..., from url: String, now: Date = TestSupport.now) {
        store(setCookieHeaders: headers, from: TestSupport.url(url), now: now)
    }

    /// The `Cookie` header for a URL literal at a given time (default: the pinned clock).
    func header(_ url: String, now: Date = TestSupport.now) -> String? {
        cookieHeader(for: TestSupport.url(url), now: now)
    }
}
