import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore
@testable import KringleURLSession

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Temporary files are created 0600 with O_EXCL | O_NOFOLLOW and used through their
/// descriptor: nothing planted at the path is followed, reused or written.
@Suite("Private temporary files", .generousTimeLimit)
struct PrivateFileTests {
    /// The permission bits of an open file (fstat) and of what its path names (stat).
    private static func modes(_ handle: FileHandle, _ url: URL) -> (descriptor: mode_t, path: mode_t) {
        var byDescriptor = stat()
        var byPath = stat()
        #expect(fstat(handle.fileDescriptor, &byDescriptor) == 0)
        #expect(stat(url.path, &byPath) == 0)
        return (byDescriptor.st_mode & 0o7777, byPath.st_mode & 0o7777)
    }

    /// Expects `body` to fail with `KringleError.file(url, POSIXError(code))`.
    private static func expectFileError(
        _ url: URL, _ code: POSIXErrorCode, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Void
    ) {
        do {
            try body()
            Issue.record("no error", sourceLocation: sourceLocation)
        } catch KringleError.file(let failed, let underlying) {
            #expect(failed == url, sourceLocation: sourceLocation)
            #expect((underlying as? POSIXError)?.code == code, "\(underlying)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("a new file is empty, 0600 from the start, and read and written through its handle")
    func create() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let url = scratch.file("body")
        let handle = try PrivateFile.create(url)
        #expect(Self.modes(handle, url) == (0o600, 0o600))
        #expect(DownloadFiles.size(url) == 0)
        try handle.write(contentsOf: Data("abc".utf8))
        try handle.seek(toOffset: 0)
        #expect(try handle.readToEnd() == Data("abc".utf8))

        let missing = scratch.file("missing-dir/file")
        Self.expectFileError(missing, .ENOENT) { _ = try PrivateFile.create(missing) }
    }

    @Test("a file already at the path is refused and left as it was")
    func existingFile() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let existing = try scratch.write(Data("someone else's".utf8), to: "body")
        Self.expectFileError(existing, .EEXIST) { _ = try PrivateFile.create(existing) }
        #expect(streamingContents(of: existing) == Data("someone else's".utf8))
    }

    @Test("a symbolic link planted at the path is not followed, whether its target exists or not")
    func plantedLink() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let victim = try scratch.write(Data("the user's file".utf8), to: "victim")
        let link = scratch.file("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: victim)
        Self.expectFileError(link, .EEXIST) { _ = try PrivateFile.create(link) }
        #expect(streamingContents(of: victim) == Data("the user's file".utf8))

        // A dangling link would otherwise create its target, wherever it points.
        let target = scratch.file("would-be-created")
        let dangling = scratch.file("dangling")
        try FileManager.default.createSymbolicLink(at: dangling, withDestinationURL: target)
        Self.expectFileError(dangling, .EEXIST) { _ = try PrivateFile.create(dangling) }
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    @Test("a private directory is new, 0700 and unique")
    func directory() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let first = try PrivateFile.makeDirectory(prefix: "kringle-upload-", in: scratch.url)
        let second = try PrivateFile.makeDirectory(prefix: "kringle-upload-", in: scratch.url)
        #expect(first != second)
        #expect(first.deletingLastPathComponent().standardizedFileURL == scratch.url.standardizedFileURL)
        #expect(first.lastPathComponent.hasPrefix("kringle-upload-"))
        var status = stat()
        #expect(lstat(first.path, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFDIR)
        #expect(status.st_mode & 0o7777 == 0o700)
        let missing = scratch.file("missing")
        do {
            _ = try PrivateFile.makeDirectory(prefix: "x-", in: missing)
            Issue.record("a directory was made in a missing one")
        } catch KringleError.file(_, let underlying) {
            #expect((underlying as? POSIXError)?.code == .ENOENT)
        }
    }

    @Test("a multipart spool is a 0600 file in a 0700 directory of its own, and a failure leaves nothing")
    func spool() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let part = try scratch.write(Data(" and a file".utf8), to: "part.txt")
        let body = StreamedBody(segments: [.data(Data("bytes".utf8)), .file(part, size: 11)])
        let spooled = try URLSessionTransport.spool(body, in: scratch.url)
        #expect(streamingContents(of: spooled) == Data("bytes and a file".utf8))
        var status = stat()
        #expect(lstat(spooled.path, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFREG)
        #expect(status.st_mode & 0o7777 == 0o600)
        let directory = URLSessionTransport.spoolDirectory(of: spooled)
        #expect(lstat(directory.path, &status) == 0)
        #expect(status.st_mode & 0o7777 == 0o700)
        #expect(directory.lastPathComponent.hasPrefix("kringle-upload-"))
        try FileManager.default.removeItem(at: directory)

        let vanished = StreamedBody(segments: [.data(Data("x".utf8)), .file(scratch.file("gone"), size: 3)])
        #expect(throws: KringleError.self) { _ = try URLSessionTransport.spool(vanished, in: scratch.url) }
        #expect(scratch.entries == ["part.txt"])
    }

    @Test("a download's temporary file is written through its descriptor even after its path moves")
    func downloadTemporaryFile() throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let temporary = try DownloadTemporaryFile(for: scratch.file("dest"))
        #expect(temporary.url.lastPathComponent.hasPrefix(".dest."))
        #expect(temporary.url.lastPathComponent.hasSuffix(".kringle-download"))
        let handle = try temporary.handleForTransfer()
        #expect(Self.modes(handle, temporary.url) == (0o600, 0o600))
        #expect(fcntl(handle.fileDescriptor, F_GETFD) & FD_CLOEXEC != 0)

        #expect(rename(temporary.url.path, scratch.file("moved").path) == 0)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data("written late".utf8))
        try handle.close()
        #expect(streamingContents(of: scratch.file("moved")) == Data("written late".utf8))
        #expect(temporary.size == 12)
        #expect(temporary.prefix(7) == Data("written".utf8))
        #expect(!temporary.isAtItsPath)
        temporary.remove()
        #expect(scratch.entries == ["moved"], "only what the path names is removed, and only if it is ours")

        let other = try DownloadTemporaryFile(for: scratch.file("dest"))
        #expect(other.isAtItsPath)
        other.remove()
        #expect(scratch.entries == ["moved"])
    }
}
