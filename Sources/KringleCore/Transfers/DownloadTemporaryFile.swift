import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file a download's body is written to before it moves into place, next to the
/// destination so that the move is a `rename(2)` on one file system.
///
/// It is created by ``PrivateFile/create(_:)`` (mode 0600, never an existing file or link)
/// and from then on used only through its descriptor: each hop's transport writes through
/// a duplicate of it, the body of an error is read back through it, and a resumed rest is
/// appended from it. Only the final move and the clean-up name the path, and both first
/// check that the path still names this file.
final class DownloadTemporaryFile: Sendable {
    /// Where the file was created.
    let url: URL
    private let handle: FileHandle
    private let identity: FileIdentity?

    /// Creates the temporary file for a download into `destination`.
    ///
    /// - Throws: ``KringleError/file(_:underlying:)`` when it cannot be created.
    init(for destination: URL) throws(KringleError) {
        url = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).kringle-download")
        handle = try PrivateFile.create(url)
        identity = PrivateFile.identity(of: handle)
    }

    /// A descriptor of its own on this file (`F_DUPFD_CLOEXEC`), for one hop's transfer: the
    /// transport empties the file through it, writes the body and may close it (released,
    /// it closes itself); this object's descriptor stays open for the next hop.
    func handleForTransfer() throws(KringleError) -> FileHandle {
        let copy = fcntl(handle.fileDescriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw .file(url, underlying: PrivateFile.posixError(errno)) }
        return FileHandle(fileDescriptor: copy, closeOnDealloc: true)
    }

    /// The file's size now, in bytes.
    var size: Int64 {
        var status = stat()
        return fstat(handle.fileDescriptor, &status) == 0 ? Int64(status.st_size) : 0
    }

    /// Up to `count` bytes from the start of the file.
    func prefix(_ count: Int) -> Data {
        var data = Data(count: count)
        var filled = 0
        data.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while filled < count {
                let read = pread(handle.fileDescriptor, base + filled, count - filled, off_t(filled))
                if read < 0, errno == EINTR { continue }
                if read <= 0 { break }
                filled += read
            }
        }
        return data.prefix(filled)
    }

    /// Appends the whole file to the end of `target`, in chunks, so memory stays flat.
    ///
    /// - Returns: How many bytes were appended.
    /// - Throws: The `POSIXError` of the read or write that failed.
    @discardableResult
    func append(to target: URL) throws -> Int64 {
        let output = try FileHandle(forWritingTo: target)
        defer { try? output.close() }
        try output.seekToEnd()
        var offset: Int64 = 0
        var chunk = Data(count: 1 << 20)
        while true {
            let read = chunk.withUnsafeMutableBytes { buffer in
                pread(handle.fileDescriptor, buffer.baseAddress, buffer.count, off_t(offset))
            }
            if read < 0 {
                if errno == EINTR { continue }
                throw PrivateFile.posixError(errno)
            }
            if read == 0 { return offset }
            try output.write(contentsOf: chunk.prefix(read))
            offset += Int64(read)
        }
    }

    /// Whether ``url`` still names this file: nobody renamed it away or put something else
    /// (a link, say) in its place.
    var isAtItsPath: Bool {
        identity != nil && PrivateFile.identity(at: url) == identity
    }

    /// Deletes the file, if ``url`` still names it; what someone else put there is not ours
    /// to delete. `unlink(2)` never follows a link nor removes a directory.
    func remove() {
        guard isAtItsPath else { return }
        _ = url.withUnsafeFileSystemRepresentation { path in path.map { unlink($0) } }
    }
}
