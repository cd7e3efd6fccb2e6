import Foundation
@_spi(KringleInternals) import KringlePromise

extension NetworkClient {
    /// Downloads `endpoint`'s body into the file at `destination`, without holding it in
    /// memory.
    ///
    /// The body streams to a temporary file next to `destination`, which is moved into place
    /// (atomically, replacing any file there) only when the transfer completed with an
    /// acceptable status. `destination` is never left half-written; a failure or a
    /// cancellation removes the temporary file. An unacceptable status rejects with
    /// ``KringleError/unacceptableStatusCode(_:_:)`` holding the start of the body.
    /// Redirects, cookies, interceptors and retries apply as for any request; the
    /// configured `timeout` is the longest time without progress.
    ///
    /// ```swift
    /// client.download(Files.installer, to: destination) { progress in
    ///     print(progress.completedBytes, progress.totalBytes ?? -1)
    /// }.done { response in print("saved to \(response.value.path)") }
    /// ```
    /// - Parameters:
    ///   - endpoint: What to download.
    ///   - destination: The file to create or replace once the whole body has arrived.
    ///   - progress: Called at most about 20 times a second plus once at the end, never
    ///     going backwards, on a queue of its own; every call has returned before the
    ///     returned promise settles.
    /// - Returns: The response, whose `value` is `destination`.
    @discardableResult
    public func download(
        _ endpoint: some Endpoint,
        to destination: URL,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Promise<Response<URL>> {
        download(endpoint, to: destination, partial: nil, validator: nil, progress: progress)
    }

    /// Downloads into `destination`, continuing the partial download at `partial`.
    ///
    /// When `partial` holds bytes, the request asks for the rest (`Range: bytes=N-`, with
    /// `Accept-Encoding: identity` so that the offsets on the wire are the file's, and
    /// `If-Range` when a `validator` is given). A `206 Partial Content` answer is appended to
    /// `partial`, which then moves to `destination`, but only if it is exactly the rest
    /// (RFC 9110 §14.4, §15.3.7): its `Content-Range` starts at the partial file's end and
    /// runs to the file's last byte, the body holds that many bytes, it is not
    /// content-coded, and it names the same version as `validator`. Otherwise the download
    /// rejects with ``KringleError/invalidResponse(_:reason:)``. Any other acceptable answer
    /// is a full body and starts over. Without a partial file this is
    /// ``download(_:to:progress:)``. On failure `partial` is kept, unchanged, for a later try.
    ///
    /// ```swift
    /// let validator = ResumeValidator(headers: earlier.headers)  // from the first attempt
    /// client.download(Files.movie, to: movie, resumingFrom: partialMovie, validator: validator)
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: What to download.
    ///   - destination: The file to create or replace once the whole body has arrived.
    ///   - partial: The bytes already downloaded; may be `destination` itself.
    ///   - validator: The version `partial` holds, from the response it came from; without
    ///     one, a server whose file changed meanwhile would send the rest of the new version.
    ///   - progress: As for ``download(_:to:progress:)``.
    /// - Returns: The response, whose `value` is `destination`.
    @discardableResult
    public func download(
        _ endpoint: some Endpoint,
        to destination: URL,
        resumingFrom partial: URL,
        validator: ResumeValidator? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Promise<Response<URL>> {
        download(endpoint, to: destination, partial: partial, validator: validator, progress: progress)
    }

    /// Uploads the file at `fileURL` as the request body, read in chunks, and decodes the
    /// response.
    ///
    /// A missing or unreadable file rejects with ``KringleError/file(_:underlying:)`` before
    /// anything is sent. The body is sent as `application/octet-stream` unless the endpoint
    /// sets a `Content-Type`. When the endpoint has a ``Endpoint/compression``, the file is
    /// compressed as it is read, never held whole (`CurlTransport` sends it chunked, without
    /// `Content-Length`; `URLSessionTransport` compresses it into a private temporary file
    /// first and sends that with one); progress still counts the file's bytes out of its
    /// size, and ``TransferProgress/bytesSent`` the compressed bytes sent.
    ///
    /// ```swift
    /// client.upload(logFile, to: Logs.upload, as: Receipt.self) { progress in
    ///     print(progress.fractionCompleted ?? 0)
    /// }
    /// ```
    @discardableResult
    public func upload<Value: Decodable & Sendable>(
        _ fileURL: URL,
        to endpoint: some Endpoint,
        method: HTTPMethod = .post,
        as type: Value.Type,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Promise<Value> {
        var body: StreamedBody
        var request: ValidatedRequest
        do {
            body = try StreamedBody.file(fileURL)
            request = try RequestAssembly.build(method, endpoint, body: nil, for: self).request
            if request.request.headers["Content-Type"] == nil {
                request = try request.setting("application/octet-stream", forField: "Content-Type")
            }
            if let compression = try RequestCompression.checked(for: endpoint),
                compression.applies(toBodyOf: body.length)
            {
                // Compressed as it streams, so sent without Content-Length.
                try Zlib.load().mapError(KringleError.compressionFailed).get()
                body = body.compressed(compression)
                request = try request.setting(compression.coding.rawValue, forField: "Content-Encoding")
            } else {
                request = try request.setting(String(body.length), forField: "Content-Length")
            }
        } catch {
            return Promise(error: error)
        }
        let sent = body
        let reporter = progress.map {
            ProgressReporter(
                .upload(
                    total: sent.compressionCounter == nil ? sent.wireLength : sent.length,
                    source: sent.compressionCounter),
                clock: configuration.clock, callback: $0)
        }
        let options = TransferOptions(body: body, progress: reporter, credentialHeaders: endpoint.credentialHeaders)
        let uploaded = runPipeline(for: request, options: options) { [self] response in
            reporter?.finish(completed: sent.compressionCounter == nil ? sent.wireLength ?? 0 : sent.length)
            return try ResponseDecoding.value(of: response, as: type, configuration: configuration)
        }
        return reporter?.deliveringFirst(uploaded) ?? uploaded
    }

    private func download(
        _ endpoint: some Endpoint,
        to destination: URL,
        partial: URL?,
        validator: ResumeValidator?,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) -> Promise<Response<URL>> {
        let temporary: DownloadTemporaryFile
        var request: ValidatedRequest
        let resumeOffset = partial.flatMap(DownloadFiles.size) ?? 0
        let asksForPart: Bool
        do {
            request = try RequestAssembly.build(.get, endpoint, body: nil, for: self).request
            asksForPart = request.request.headers["Range"] != nil  // the caller's own
            if resumeOffset > 0 {
                request = try request.setting("bytes=\(resumeOffset)-", forField: "Range")
                // RFC 9110 §14.4: a coded body's ranges count coded bytes, not the file's.
                request = try request.setting("identity", forField: "Accept-Encoding")
                // RFC 9110 §13.1.5: the rest if the file is still this version, else all of it.
                // (A validator is the server's own field value: checked like any other.)
                if let validator { request = try request.setting(validator.value, forField: "If-Range") }
            }
            temporary = try DownloadTemporaryFile(for: destination)
        } catch {
            return Promise(error: error)
        }
        let reporter = progress.map { ProgressReporter(.download, clock: configuration.clock, callback: $0) }
        let options = TransferOptions(
            responseBodyFile: temporary, progress: reporter, credentialHeaders: endpoint.credentialHeaders)
        let transferred = runPipeline(for: request, options: options) { response in
            let resumed = resumeOffset > 0 && response.statusCode == 206
            // RFC 9110 §15.3.7: a 206 answers a Range request only; moved into place, its
            // part of the file would pass for the whole.
            if response.statusCode == 206, !resumed, !asksForPart {
                throw KringleError.invalidResponse(
                    Response(response), reason: "the server sent part of the file (206) when asked for all of it")
            }
            let written = try DownloadFiles.finish(
                temporary,
                into: destination,
                appendingTo: resumed ? partial : nil,
                at: resumeOffset,
                validator: validator,
                response: response
            )
            // A full body replaced the partial one: the partial file has served its purpose.
            if let partial, !resumed, !DownloadFiles.sameFile(partial, destination) { DownloadFiles.remove(partial) }
            reporter?.finish(completed: written)
            return Response(value: destination, body: Data(), of: response)
        }
        let downloaded = reporter?.deliveringFirst(transferred) ?? transferred
        // Removed before the failure is seen, whatever ends the download.
        let cleaned = downloaded.mapResultInline { result in
            if case .failure = result { temporary.remove() }
            return try result.get()
        }
        cleaned.onCancel { temporary.remove() }
        return cleaned
    }
}
