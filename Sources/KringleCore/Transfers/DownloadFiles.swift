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
    /// With `partial`, the downloaded rest is appended to it first, once
    /// ``checkRest(_:startingAt:received:validator:)`` has found it to be exactly the rest of
    /// the file the partial one starts, and `partial` moves; a rest that is not leaves
    /// `partial` as it was.
    static func finish(
        _ temporary: DownloadTemporaryFile,
        into destination: URL,
        appendingTo partial: URL?,
        at offset: Int64,
        validator: ResumeValidator? = nil,
        response: HTTPResponse
    ) throws -> Int64 {
        var source = temporary.url
        if let partial {
            try checkRest(response, startingAt: offset, received: temporary.size, validator: validator)
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

    /// Checks that a 206 answering `Range: bytes=offset-` holds exactly the rest of the file
    /// whose first `offset` bytes the partial file has, so that appending it gives the file.
    ///
    /// - The body is not content-coded: `Content-Range` counts the bytes of the coded
    ///   representation (RFC 9110 §14.4, §8.4), which are not the file's.
    /// - `Content-Range` is one valid `bytes first-last/complete` (§14.4; a multipart
    ///   answer has none, §15.3.7.2), `first` is `offset`, and, when the complete length is
    ///   known, `last` is its final byte: we asked for everything from `offset` on, and a
    ///   shorter rest would make an incomplete file.
    /// - The body holds `last - first + 1` bytes (§15.3.7: the content is that range).
    /// - A `validator` sent as `If-Range` is not contradicted by the response's own (§15.3.7).
    ///
    /// - Parameter received: how many body bytes arrived.
    /// - Throws: ``KringleError/invalidResponse(_:reason:)`` saying what does not fit.
    static func checkRest(
        _ response: HTTPResponse, startingAt offset: Int64, received: Int64, validator: ResumeValidator?
    ) throws(KringleError) {
        func refuse(_ reason: String) -> KringleError {
            .invalidResponse(Response(response), reason: reason + "; the partial file was left as it was")
        }
        if let coding = response.headers["Content-Encoding"], coding.lowercased() != "identity" {
            throw refuse("the server sent the rest with Content-Encoding \(coding), so its offsets are not the file's")
        }
        let field = response.headers["Content-Range"]
        guard let range = field.flatMap(ContentRange.init) else {
            throw refuse(
                "the server resumed with Content-Range \(field ?? "missing"), not bytes \(offset)-last/length")
        }
        guard range.first == offset else {
            throw refuse("the server resumed at \(field ?? ""), not at byte \(offset)")
        }
        if let length = range.completeLength, range.last != length - 1 {
            throw refuse("the server sent \(field ?? ""), which stops before the end of the file at byte \(length - 1)")
        }
        guard received == range.count else {
            throw refuse("the server announced \(field ?? "") (\(range.count) bytes) but sent \(received) bytes")
        }
        if let validator, validator.isContradicted(by: response.headers) {
            throw refuse("the server resumed another version of the file than \(validator)")
        }
    }
}
