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

    /// Reads the cookies stored at `url`.
    ///
    /// - Returns: The cookies, or `nil` when there is no file (an empty jar).
    /// - Throws: ``CookieJar/PersistenceError/unreadable(_:underlying:)`` or
    ///   ``CookieJar/PersistenceError/corrupt(_:reason:)``.
    static func read(from url: URL) throws(CookieJar.PersistenceError) -> [Cookie]? {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile {
            return nil
        } catch {
            throw .unreadable(url, underlying: error)
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

    /// Replaces the file at `url` atomically: the data goes to a temporary file in
    /// the same directory (mode 0600), which is flushed with `fsync` and renamed over
    /// the target. Readers, other processes and crashes see the old file or the new
    /// one, never a mix.
    ///
    /// - Throws: ``CookieJar/PersistenceError/unwritable(_:underlying:)``.
    static func writeAtomically(_ data: Data, to url: URL) throws(CookieJar.PersistenceError) {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let result: Int32 = temporary.withUnsafeFileSystemRepresentation { tempPath in
            url.withUnsafeFileSystemRepresentation { finalPath in
                guard let tempPath, let finalPath else { return EINVAL }
                return writeAndRename(data, temporaryPath: tempPath, finalPath: finalPath)
            }
        }
        guard result == 0 else {
            throw .unwritable(url, underlying: POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO))
        }
        // Make the rename itself durable; a failure here loses nothing, so it is ignored.
        directory.withUnsafeFileSystemRepresentation { path in
            guard let path else { return }
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 {
                _ = fsync(fd)
                _ = close(fd)
            }
        }
    }

    /// Writes, syncs and renames; returns 0 or an `errno` value.
    private static func writeAndRename(
        _ data: Data, temporaryPath: UnsafePointer<CChar>, finalPath: UnsafePointer<CChar>
    ) -> Int32 {
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return errno }
        var failure: Int32 = 0
        if fchmod(fd, 0o600) != 0 { failure = errno }  // in case the umask is odd
        if failure == 0 {
            failure = data.withUnsafeBytes { buffer -> Int32 in
                var offset = 0
                while offset < buffer.count {
                    let written = write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    offset += written
                }
                return 0
            }
        }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == 0 { failure = errno }
        if failure == 0, rename(temporaryPath, finalPath) != 0 { failure = errno }
        if failure != 0 { _ = unlink(temporaryPath) }
        return failure
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
