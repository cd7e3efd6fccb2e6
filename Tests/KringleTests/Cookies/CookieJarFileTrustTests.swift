import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A persistent jar refuses a file someone else could have written, and leaves it alone.
@Suite("Cookie file trust")
struct CookieJarFileTrustTests {
    /// A valid jar file holding one persistent cookie, written with `mode`.
    private static func writeCookieFile(in directory: URL, mode: mode_t = 0o600) throws -> URL {
        let file = directory.appendingPathComponent("cookies.json")
        let cookie = Cookie(
            name: "sid", value: "planted", domain: "example.com", expires: TestSupport.now.addingTimeInterval(3_600),
            creationTime: TestSupport.now)
        try CookieJarFile.encode([cookie]).write(to: file)
        #expect(chmod(file.path, mode) == 0)
        return file
    }

    /// The file's bytes, mode, owner and modification time, to show it was left untouched.
    private struct Snapshot: Equatable {
        var bytes: Data
        var mode: mode_t
        var owner: uid_t
        var modified: Int

        init(_ url: URL) throws {
            var status = stat()
            #expect(stat(url.path, &status) == 0)
            // A FIFO has no bytes to compare (and reading one would wait for a writer).
            bytes = status.st_mode & S_IFMT == S_IFREG ? try Data(contentsOf: url) : Data()
            mode = status.st_mode
            owner = status.st_uid
            #if canImport(Darwin)
            modified = status.st_mtimespec.tv_sec * 1_000_000_000 + status.st_mtimespec.tv_nsec
            #else
            modified = status.st_mtim.tv_sec * 1_000_000_000 + status.st_mtim.tv_nsec
            #endif
        }
    }

    /// Opens a jar on `file` expecting `.untrusted(file, problem)`, and checks that neither the
    /// file nor its directory changed.
    private static func expectUntrusted(
        _ file: URL, _ problem: CookieJar.PersistenceError.TrustProblem,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try Snapshot(file)
        let directory = file.deletingLastPathComponent()
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(sourceLocation: sourceLocation) {
            _ = try CookieJar(fileURL: file, now: TestSupport.now)
        } throws: { error in
            guard case .untrusted(let url, let found)? = error as? CookieJar.PersistenceError else { return false }
            let description = String(describing: error)
            return url == file && found == problem && description.contains("not trusted")
                && description.contains(problem.description)
        }
        #expect(try Snapshot(file) == before, sourceLocation: sourceLocation)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path) == entries,
            sourceLocation: sourceLocation)
    }

    @Test("a file of the current user's, writable only by them, loads", arguments: [0o600, 0o400, 0o644] as [mode_t])
    func trustedModes(mode: mode_t) throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let file = try Self.writeCookieFile(in: directory, mode: mode)
        let jar = try CookieJar(fileURL: file, now: TestSupport.now)
        #expect(jar.allCookies.map(\.value) == ["planted"])
        #expect(jar.loadReport == CookieJar.LoadReport(loaded: 1))
    }

    @Test("a file owned by another user is refused and left untouched")
    func otherOwner() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        if geteuid() == 0 {
            // Root can give a file away: to nobody (65534), which is not who runs the test.
            let file = try Self.writeCookieFile(in: directory)
            #expect(chown(file.path, 65_534, 65_534) == 0)
            try Self.expectUntrusted(file, .ownedByAnotherUser(owner: 65_534, currentUser: 0))
        } else {
            // Anyone else finds a file of root's: the check comes before the content is read.
            let file = URL(fileURLWithPath: "/etc/passwd")
            try Self.expectUntrusted(file, .ownedByAnotherUser(owner: 0, currentUser: geteuid()))
        }
    }

    @Test(
        "a file the group or others may write is refused and left untouched",
        arguments: [0o620, 0o602, 0o666, 0o622, 0o4622] as [mode_t])
    func writableByOthers(mode: mode_t) throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let file = try Self.writeCookieFile(in: directory, mode: mode)
        try Self.expectUntrusted(file, .writableByOthers(permissions: UInt16(mode)))
    }

    @Test("a FIFO at the path is refused at once instead of blocking the open")
    func fifo() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let file = directory.appendingPathComponent("cookies.json")
        #expect(mkfifo(file.path, 0o600) == 0)
        try Self.expectUntrusted(file, .notARegularFile)
    }

    // The checks are made with fstat on the opened file: what a link points to is judged.
    @Test("a symbolic link is judged by the file it names")
    func symbolicLinks() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let file = try Self.writeCookieFile(in: directory)
        let link = directory.appendingPathComponent("link.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        #expect(try CookieJar(fileURL: link, now: TestSupport.now).allCookies.count == 1)

        #expect(chmod(file.path, 0o666) == 0)
        #expect {
            _ = try CookieJar(fileURL: link, now: TestSupport.now)
        } throws: { error in
            guard case .untrusted(let url, .writableByOthers(0o666))? = error as? CookieJar.PersistenceError
            else { return false }
            return url == link
        }
    }

    @Test("a file larger than the jar's limits could write is refused before it is read")
    func oversized() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let file = try Self.writeCookieFile(in: directory)
        let limits = CookieJar.Limits(cookiesPerDomain: 1, totalCookies: 1)
        let maximum = CookieJarFile.maximumSize(for: limits)
        #expect(maximum == (32 << 10) + (1 << 20))
        #expect(truncate(file.path, off_t(maximum + 1)) == 0)  // sparse: costs no disk
        let before = try Snapshot(file)
        #expect {
            _ = try CookieJar(fileURL: file, limits: limits, now: TestSupport.now)
        } throws: { error in
            guard case .corrupt(_, let reason)? = error as? CookieJar.PersistenceError else { return false }
            return reason.contains("\(maximum + 1) bytes")
        }
        #expect(try Snapshot(file) == before)
        #expect(CookieJarFile.maximumSize(for: CookieJar.Limits(totalCookies: .max)) == .max)
    }

    @Test("the jar's own file passes its checks on the next start")
    func ownFileIsTrusted() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let file = directory.appendingPathComponent("cookies.json")
        let jar = try CookieJar(fileURL: file, now: TestSupport.now)
        jar.store("a=1; Max-Age=600", from: "https://example.com/")
        jar.flush()
        #expect(try CookieJar(fileURL: file, now: TestSupport.now).allCookies.map(\.name) == ["a"])
    }
}
