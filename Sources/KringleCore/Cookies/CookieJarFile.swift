import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The on-disk format of a persistent ``CookieJar``: JSON
/// `{"version": 1, "cookies": [ … ]}` with each ``Cookie`` in its `Codable` form,
/// keys sorted so that equal jars give equal files.
struct CookieJarFile: Codable, Sendable {
    /// The format version this code writes and reads.
    static let currentVersion = 1

    /// The format version of the file.
    var version: Int
    /// The persistent, unexpired cookies.
    var cookies: [Cookie]

    /// Encodes cookies in the current format.
    static func encode(_ cookies: [Cookie]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(CookieJarFile(version: currentVersion, cookies: cookies))
    }

    /// Reads the cookies stored at `url`, after checking that the file can be trusted.
    ///
    /// The checks run on the opened descriptor (`fstat`), not on the path, so the file
    /// checked is the file read even if the path is swapped meanwhile. A file another user
    /// owns, or that the group or others may write, could have been planted or edited by
    /// someone else to inject cookies (a session fixation), so it is refused. A symbolic
    /// link is followed: the checks apply to the file it names.
    ///
    /// - Parameter maximumSize: the largest file accepted, in bytes; a larger one is
    ///   ``CookieJar/PersistenceError/corrupt(_:reason:)`` rather than read into memory.
    /// - Returns: The cookies, or `nil` when there is no file (an empty jar).
    /// - Throws: ``CookieJar/PersistenceError/unreadable(_:underlying:)``,
    ///   ``CookieJar/PersistenceError/untrusted(_:_:)`` or
    ///   ``CookieJar/PersistenceError/corrupt(_:reason:)``.
    static func read(from url: URL, maximumSize: Int) throws(CookieJar.PersistenceError) -> [Cookie]? {
        let data: Data
        switch readTrusted(url, maximumSize: maximumSize) {
        case .missing:
            return nil
        case .failed(let error):
            throw error
        case .read(let bytes):
            data = bytes
        }
        let file: CookieJarFile
        do {
            file = try JSONDecoder().decode(CookieJarFile.self, from: data)
        } catch let error as DecodingError {
            throw .corrupt(url, reason: describe(error))
        } catch {
            throw .corrupt(url, reason: String(describing: error))
        }
        guard file.version == currentVersion else {
            throw .corrupt(url, reason: "unsupported format version \(file.version), expected \(currentVersion)")
        }
        return file.cookies
    }

    /// The largest file accepted for a jar with `limits`: 32 KiB for each cookie it may hold
    /// (name and value together are at most 4096 bytes, a `Domain` 1024, and JSON escapes
    /// at most double them; the rest is a long path's room), plus 1 MiB.
    static func maximumSize(for limits: CookieJar.Limits) -> Int {
        let (cookies, overflow) = limits.totalCookies.multipliedReportingOverflow(by: 32 << 10)
        return overflow || cookies > .max - (1 << 20) ? .max : cookies + (1 << 20)
    }

    private enum ReadOutcome {
        case missing
        case read(Data)
        case failed(CookieJar.PersistenceError)
    }

    /// Opens `url`, checks the descriptor's owner, mode and type, and reads it whole.
    private static func readTrusted(_ url: URL, maximumSize: Int) -> ReadOutcome {
        url.withUnsafeFileSystemRepresentation { path -> ReadOutcome in
            guard let path else { return .failed(.unreadable(url, underlying: POSIXError(.EINVAL))) }
            // O_NONBLOCK: opening a FIFO planted at the path must not block until a writer
            // comes; it is refused below as not a regular file.
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else {
                let code = errno
                if code == ENOENT { return .missing }
                return .failed(.unreadable(url, underlying: posixError(code)))
            }
            defer { _ = close(fd) }
            var status = stat()
            guard fstat(fd, &status) == 0 else { return .failed(.unreadable(url, underlying: posixError(errno))) }
            let type = status.st_mode & S_IFMT
            if type == S_IFDIR { return .failed(.unreadable(url, underlying: POSIXError(.EISDIR))) }
            if let problem = trustProblem(type: type, mode: status.st_mode, owner: status.st_uid) {
                return .failed(.untrusted(url, problem))
            }
            guard Int64(status.st_size) <= Int64(maximumSize) else {
                return .failed(
                    .corrupt(
                        url,
                        reason: "the file is \(status.st_size) bytes, more than a jar of these limits writes "
                            + "(\(maximumSize) bytes)"))
            }
            return readAll(fd, url: url, maximumSize: maximumSize)
        }
    }

    /// Why a file of this type, mode and owner is not trusted, if it is not.
    static func trustProblem(type: mode_t, mode: mode_t, owner: uid_t) -> CookieJar.PersistenceError.TrustProblem? {
        guard type == S_IFREG else { return .notARegularFile }
        let currentUser = geteuid()
        guard owner == currentUser else { return .ownedByAnotherUser(owner: owner, currentUser: currentUser) }
        let permissions = UInt16(truncatingIfNeeded: mode & 0o7777)
        guard permissions & 0o022 == 0 else { return .writableByOthers(permissions: permissions) }
        return nil
    }

    /// Reads the rest of `fd`; at most `maximumSize` bytes (the file may grow after `fstat`).
    private static func readAll(_ fd: Int32, url: URL, maximumSize: Int) -> ReadOutcome {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failed(.unreadable(url, underlying: posixError(errno)))
            }
            if count == 0 { return .read(data) }
            guard data.count + count <= maximumSize else {
                return .failed(.corrupt(url, reason: "the file grew beyond \(maximumSize) bytes while it was read"))
            }
            data.append(contentsOf: chunk[..<count])
        }
    }

    private static func posixError(_ code: Int32) -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
    }

    /// `read(2)`, which the static method ``read(from:maximumSize:)`` hides.
    private static func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        return Glibc.read(fd, buffer, count)
        #elseif canImport(Musl)
        return Musl.read(fd, buffer, count)
        #else
        return Darwin.read(fd, buffer, count)
        #endif
    }

    /// Replaces the file at `url` atomically: the data goes to a temporary file in
    /// the same directory (mode 0600), which is flushed with `fsync` and renamed over
    /// the target. Readers, other processes and crashes see the old file or the new
    /// one, never a mix.
    ///
    /// - Throws: ``CookieJar/PersistenceError/unwritable(_:underlying:)``.
    static func writeAtomically(_ data: Data, to url: URL) throws(CookieJar.PersistenceError) {
        let result = PrivateFile.replace(url, with: data, durably: true)
        guard result == 0 else {
            throw .unwritable(url, underlying: POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO))
        }
    }

    /// A readable account of a decoding failure: what was wrong and where.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return path.isEmpty ? "the top level" : path.joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context):
            return "invalid JSON at \(path(context)) (\(context.debugDescription))"
        case .keyNotFound(let key, let context):
            return "missing key \"\(key.stringValue)\" at \(path(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "unexpected value at \(path(context)) (\(context.debugDescription))"
        @unknown default:
            return String(describing: error)
        }
    }
}
