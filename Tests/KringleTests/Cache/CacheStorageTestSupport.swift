import Foundation
import Kringle
import Testing

@testable import KringleCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Helpers for the storage tests: responses built from a few parts, a fresh directory per
/// test, and what the files in it look like.
enum CacheStorageFixtures {
    /// A fixed time with a fraction of a second, as a real clock gives.
    static let now = Date(timeIntervalSince1970: 1_700_000_000.123_456)

    /// A response to `key` (a URL) with `body`, received at `now`.
    static func response(
        _ key: String, body: Data = Data("hello".utf8), status: Int = 200, headers: HTTPHeaders = ["ETag": #""1""#],
        vary: [String: String] = [:], received: Date = now
    ) -> CachedResponse {
        CachedResponse(
            url: URL(string: key) ?? URL(fileURLWithPath: "/"), statusCode: status, headers: headers, body: body,
            varyingRequestHeaders: vary, requestDate: received.addingTimeInterval(-0.25), responseDate: received)
    }

    /// A list of `count` variants for `key`, every byte derived from both: a list read back
    /// is valid only if it equals the one written.
    static func variants(_ key: String, count: Int, bodyLength: Int = 200) -> [CachedResponse] {
        (0..<count).map { index in
            let seed = UInt8(truncatingIfNeeded: key.utf8.count &* 31 &+ count &* 7 &+ index)
            let body = Data((0..<bodyLength).map { UInt8(truncatingIfNeeded: $0) &+ seed })
            return response(
                key, body: body, headers: ["Variant": "\(index) of \(count)"], vary: ["accept": "type/\(index)"],
                received: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)))
        }
    }

    /// A fresh, empty directory for one test; the storage under test goes in `cache` inside it.
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("KringleCacheStorageTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Deletes a directory made by ``temporaryDirectory()``, whatever a test left in it.
    static func remove(_ directory: URL) {
        _ = chmod(directory.path, 0o700)
        try? FileManager.default.removeItem(at: directory)
    }

    /// The names in `directory`, sorted.
    static func names(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    /// The names in `directory` that are storage entries.
    static func entryNames(in directory: URL) -> [String] {
        names(in: directory).filter(CacheEntryFile.isEntryName)
    }

    /// The total size of the entry files in `directory`.
    static func entryBytes(in directory: URL) -> Int {
        entryNames(in: directory).reduce(0) { total, name in
            total + (status(of: directory.appendingPathComponent(name)).map { Int($0.st_size) } ?? 0)
        }
    }

    /// `lstat` of `url`, or nil when nothing is there.
    static func status(of url: URL) -> stat? {
        var status = stat()
        return lstat(url.path, &status) == 0 ? status : nil
    }

    /// The permission bits of what `url` names.
    static func permissions(of url: URL) -> mode_t? {
        status(of: url).map { $0.st_mode & 0o7777 }
    }

    /// Whether anything (a dangling link included) is at `url`.
    static func exists(_ url: URL) -> Bool {
        status(of: url) != nil
    }

    /// Sets the access and modification times of `url` to `seconds` since 1970.
    static func setModified(_ url: URL, to seconds: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        var times = [timeval(tv_sec: seconds, tv_usec: 0), timeval(tv_sec: seconds, tv_usec: 0)]
        #expect(utimes(url.path, &times) == 0, sourceLocation: sourceLocation)
    }

    /// The modification time of `url`, in whole seconds since 1970.
    static func modified(_ url: URL) -> Int? {
        #if canImport(Darwin)
        status(of: url).map { Int($0.st_mtimespec.tv_sec) }
        #else
        status(of: url).map { Int($0.st_mtim.tv_sec) }
        #endif
    }
}
