import Foundation

/// The file work of a download: the atomic move into place, resuming. The temporary file
/// itself is a ``DownloadTemporaryFile``.
enum DownloadFiles {
    /// The size of the file at `url`, if there is one.
    static func size(_ url: URL) -> Int64? {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.int64Value
    }

    /// Whether two file URLs, however spelled, name the same path.
    static func sameFile(_ lhs: URL, _ rhs: URL) -> Bool {
        lhs.standardizedFileURL.resolvingSymlinksInPath().path == rhs.standardizedFileURL.resolvingSymlinksInPath().path
    }

    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    /// Moves the finished download into place and returns the size of the file there.
    ///
    /// With `partial`, the downloaded rest is appended to it first (after checking that the
    /// `Content-Range` of `response` starts where the partial file ends), and `partial` moves.
    static func finish(
        _ temporary: DownloadTemporaryFile,
        into destination: URL,
        appendingTo partial: URL?,
        at offset: Int64,
        response: HTTPResponse
    ) throws -> Int64 {
        var source = temporary.url
        if let partial {
            let contentRange = response.headers["Content-Range"]
            guard let start = contentRangeStart(contentRange), start == offset else {
                throw KringleError.invalidResponse(
                    Response(response),
                    reason: "the server resumed at \(contentRange ?? "an unknown offset"), not at byte \(offset)")
            }
            do {
                try temporary.append(to: partial)
            } catch {
                throw KringleError.file(partial, underlying: error)
            }
            temporary.remove()
            source = partial
        } else if !temporary.isAtItsPath {
            // What is at the path now is not the file the body went to. (Someone who can
            // write to the directory could still swap it between this look and the rename.)
            throw KringleError.file(temporary.url, underlying: KringleError.TemporaryFileReplaced())
        }
        // rename(2) replaces the destination atomically: no reader sees a half-written file.
        guard rename(source.path, destination.path) == 0 else {
            throw KringleError.file(destination, underlying: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
        }
        return size(destination) ?? 0
    }

    /// `bytes 500-999/1000` → 500.
    static func contentRangeStart(_ value: String?) -> Int64? {
        guard let value, value.lowercased().hasPrefix("bytes ") else { return nil }
        return Int64(value.dropFirst(6).prefix { $0 != "-" })
    }
}
