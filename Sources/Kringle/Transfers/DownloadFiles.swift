import Foundation

/// The file work of a download: the temporary file, the atomic move into place, resuming.
enum DownloadFiles {
    /// Creates an empty file (the transport writes into it but never creates it, so a file
    /// removed after a cancellation stays removed).
    static func create(_ url: URL) throws {
        // Only the user may read what is being downloaded, from the first byte on; a file
        // already there (a name collision, a planted link) is an error, never reused.
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw KringleError.file(url, underlying: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
        }
        close(descriptor)
    }

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
        _ temporary: URL,
        into destination: URL,
        appendingTo partial: URL?,
        at offset: Int64,
        response: HTTPResponse
    ) throws -> Int64 {
        var source = temporary
        if let partial {
            let contentRange = response.headers["Content-Range"]
            guard let start = contentRangeStart(contentRange), start == offset else {
                throw KringleError.invalidResponse(
                    Response(response),
                    reason: "the server resumed at \(contentRange ?? "an unknown offset"), not at byte \(offset)")
            }
            do {
                try append(temporary, to: partial)
            } catch {
                throw KringleError.file(partial, underlying: error)
            }
            remove(temporary)
            source = partial
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

    /// Appends a file to another in chunks, so memory stays flat.
    private static func append(_ source: URL, to target: URL) throws {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        let output = try FileHandle(forWritingTo: target)
        defer { try? output.close() }
        try output.seekToEnd()
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
            try output.write(contentsOf: chunk)
        }
    }
}
