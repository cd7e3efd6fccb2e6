import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Files and directories only the current user can use, created safely in directories
/// others can write to (`/tmp`, a shared download folder).
///
/// A file is created and opened in one call, `O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC`
/// with mode 0600: a file or symbolic link already at the path (planted by someone who
/// guessed the name) is an error, never opened or followed, and nobody else can read the
/// file from its first byte on. It is then used only through the returned descriptor,
/// never opened again by path, so swapping the path afterwards changes nothing we write.
package enum PrivateFile {
    /// Creates `url` and opens it for reading and writing.
    ///
    /// - Returns: A handle that closes the descriptor when it is released.
    /// - Throws: ``KringleError/file(_:underlying:)`` with the `POSIXError` of `open(2)`:
    ///   `EEXIST` when anything is already at the path, a dangling link included.
    package static func create(_ url: URL) throws(KringleError) -> FileHandle {
        let descriptor = url.withUnsafeFileSystemRepresentation { path -> Int32 in
            guard let path else {
                errno = EINVAL
                return -1
            }
            return open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        }
        guard descriptor >= 0 else { throw .file(url, underlying: posixError(errno)) }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Creates a new directory with a unique name starting with `prefix` in `parent`, mode
    /// 0700 (`mkdtemp(3)`), for a file that another component must open by path: inside it,
    /// no other user can plant, replace or read anything.
    ///
    /// - Throws: ``KringleError/file(_:underlying:)`` with the `POSIXError` of `mkdtemp`.
    package static func makeDirectory(prefix: String, in parent: URL) throws(KringleError) -> URL {
        let template = parent.appendingPathComponent(prefix + "XXXXXX", isDirectory: false)  // no trailing /
        var path = Array(template.path(percentEncoded: false).utf8CString)
        let made = path.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return mkdtemp(base) != nil
        }
        guard made else { throw .file(template, underlying: posixError(errno)) }
        let created = path.withUnsafeBufferPointer { buffer in
            String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return URL(fileURLWithPath: created, isDirectory: true)
    }

    /// The device and inode of an open file (`fstat`), which name it whatever its path.
    static func identity(of handle: FileHandle) -> FileIdentity? {
        var status = stat()
        guard fstat(handle.fileDescriptor, &status) == 0 else { return nil }
        return FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// The device and inode of what `url` names now, without following a final link
    /// (`lstat`).
    static func identity(at url: URL) -> FileIdentity? {
        var status = stat()
        let found = url.withUnsafeFileSystemRepresentation { path in
            path.map { lstat($0, &status) == 0 } ?? false
        }
        return found ? FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)) : nil
    }

    /// An `errno` value as a `POSIXError`.
    static func posixError(_ code: Int32) -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
    }
}
