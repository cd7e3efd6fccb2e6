import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension PrivateFile {
    /// Replaces the file at `url` atomically: `data` goes to a new private file beside it
    /// (mode 0600, `O_EXCL | O_NOFOLLOW`, named `.<name>.<UUID>.tmp`), which is renamed over
    /// the target. Readers, other processes and crashes see the old file or the new one,
    /// never a mix.
    ///
    /// - Parameter durably: Whether to `fsync` the file before the rename and the directory
    ///   after it, so that the new file survives a power loss: the cookie jar's file does;
    ///   a cache entry, which can always be fetched again, need not pay for it.
    /// - Returns: 0, or the `errno` of the step that failed; the temporary file is then
    ///   removed and the target left as it was.
    static func replace(_ url: URL, with data: Data, durably: Bool) -> Int32 {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let result: Int32 = temporary.withUnsafeFileSystemRepresentation { temporaryPath in
            url.withUnsafeFileSystemRepresentation { finalPath in
                guard let temporaryPath, let finalPath else { return EINVAL }
                return writeAndRename(data, temporaryPath: temporaryPath, finalPath: finalPath, durably: durably)
            }
        }
        guard result == 0, durably else { return result }
        // Make the rename itself durable; a failure here loses nothing, so it is ignored.
        directory.withUnsafeFileSystemRepresentation { path in
            guard let path else { return }
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 {
                _ = fsync(fd)
                _ = close(fd)
            }
        }
        return 0
    }

    /// Writes (and syncs, when `durably`) the temporary file, then renames it; returns 0 or
    /// an `errno` value.
    private static func writeAndRename(
        _ data: Data, temporaryPath: UnsafePointer<CChar>, finalPath: UnsafePointer<CChar>, durably: Bool
    ) -> Int32 {
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
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
        if failure == 0, durably, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == 0 { failure = errno }
        if failure == 0, rename(temporaryPath, finalPath) != 0 { failure = errno }
        if failure != 0 { _ = unlink(temporaryPath) }
        return failure
    }
}
