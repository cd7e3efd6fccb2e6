import Foundation
@_spi(KringleInternals) import KringleCore

extension URLSessionTransport {
    /// Copies a body of several pieces (a multipart form) into a file, for
    /// `uploadTask(with:fromFile:)`.
    ///
    /// URLSession opens that file by path, so it sits in a directory of its own, made by
    /// `mkdtemp(3)` with mode 0700 in `parent`: no other user can plant, swap or read
    /// anything in it, even in a shared `/tmp`. The file is created there by
    /// ``PrivateFile/create(_:)`` (mode 0600, `O_EXCL | O_NOFOLLOW`) and written through
    /// that descriptor.
    ///
    /// - Parameters:
    ///   - body: The body to copy.
    ///   - parent: Where to make the directory; the temporary directory in use.
    /// - Returns: The file, named `body`; remove its directory (``spoolDirectory(of:)``)
    ///   once the task is over. On failure nothing is left behind.
    static func spool(_ body: StreamedBody, in parent: URL) throws -> URL {
        let directory = try PrivateFile.makeDirectory(prefix: "kringle-upload-", in: parent)
        let file = directory.appendingPathComponent("body")
        do {
            let handle = try PrivateFile.create(file)
            defer { try? handle.close() }
            var reader = body.makeReader()
            while let chunk = try reader.read(upTo: 1 << 20) { try handle.write(contentsOf: chunk) }
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        return file
    }

    /// The directory ``spool(_:in:)`` made for `file`, which goes with it.
    static func spoolDirectory(of file: URL) -> URL {
        file.deletingLastPathComponent()
    }
}
