import Foundation
@_spi(KringleInternals) import KringlePromise

extension NetworkClient {
    /// Sends `method` to `endpoint` and hands over the response body as it arrives.
    ///
    /// ```swift
    /// let stream = client.stream(Logs.tail)
    /// for try await line in stream.lines {
    ///     print(line)
    /// }
    /// ```
    ///
    /// Everything else is as for any request: redirects are followed, cookies stored,
    /// interceptors adapt the request and may retry it until its head has arrived, the
    /// status is checked, and the client's timeout applies until the head has arrived (the
    /// body may then take as long as it takes). The response limits hold the body to
    /// ``ResponseLimits/maximumDownloadBytes`` and the decompression ratio.
    ///
    /// - Parameters:
    ///   - endpoint: Where to send it.
    ///   - method: The HTTP method; GET by default.
    ///   - body: What to send, if anything (no multipart form: its parts stream in turn).
    /// - Returns: The stream, already on its way: read its ``ResponseStream/response`` and
    ///   iterate it (or its ``ResponseStream/lines``) once.
    public func stream(_ endpoint: some Endpoint, method: HTTPMethod = .get, body: RequestBody? = nil) -> ResponseStream
    {
        startStream(method, endpoint, body: body)
    }

    /// Sends `method` to `endpoint` and decodes each line of the response body as `T` as it
    /// arrives: newline-delimited JSON (see ``ResponseStream/decodedLines(as:decoder:maximumLength:)``),
    /// with the client's decoder.
    ///
    /// ```swift
    /// for try await entry in client.lines(Logs.feed, as: LogEntry.self) {
    ///     print(entry.message)
    /// }
    /// ```
    public func lines<T: Decodable & Sendable>(
        _ endpoint: some Endpoint, as type: T.Type, method: HTTPMethod = .get, body: RequestBody? = nil
    ) -> ResponseStream.DecodedLines<T> {
        stream(endpoint, method: method, body: body).decodedLines(as: type, decoder: configuration.decoder)
    }

    /// Sends `method` to `endpoint` and calls `onChunk` with each piece of the response
    /// body as it arrives, one call after another on `queue`: the next piece is read only
    /// once `onChunk` has returned, so a slow handler holds the transfer back.
    ///
    /// ```swift
    /// client.stream(Logs.tail) { chunk in output.write(chunk) }
    ///     .done { response in print("done:", response.statusCode) }
    /// ```
    ///
    /// - Returns: A promise of the response once the whole body went through `onChunk`.
    ///   Cancelling it stops the transfer.
    @discardableResult
    public func stream(
        _ endpoint: some Endpoint, method: HTTPMethod = .get, body: RequestBody? = nil,
        on queue: DispatchQueue = .promises, onChunk: @escaping @Sendable (Data) -> Void
    ) -> Promise<Response<Void>> {
        let finished = Promise<Response<Void>>.pending()
        let stream = startStream(method, endpoint, body: body)
        let started = stream.state.started
        finished.onCancel { stream.cancel() }
        started.always(on: queue) {
            switch started.result {
            case .success(let started)?:
                Self.pump(started.channel, on: queue, onChunk) { end in
                    finished.resolve(end.map { started.response })
                }
            case .failure(let error)?:
                finished.reject(error)
            case nil:
                break
            }
        }
        return finished
    }

    /// Reads `channel` to its end on `queue`, one chunk per job.
    private static func pump(
        _ channel: ResponseBodyChannel, on queue: DispatchQueue, _ onChunk: @escaping @Sendable (Data) -> Void,
        end: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        channel.next { result in
            queue.async {
                switch result {
                case .success(let chunk?):
                    onChunk(chunk)
                    pump(channel, on: queue, onChunk, end: end)
                case .success(nil):
                    end(.success(()))
                case .failure(let error):
                    end(.failure(error))
                }
            }
        }
    }

    /// The pipeline for a streamed body: every hop's transfer gets a channel, and the final
    /// response's is the caller's.
    ///
    /// - Parameters:
    ///   - headers: Fields that win over the client's default headers, not over the
    ///     endpoint's own.
    ///   - capacity: How many bytes may wait for a slow reader.
    func startStream(
        _ method: HTTPMethod, _ endpoint: some Endpoint, body: RequestBody?, headers: [String: String] = [:],
        capacity: Int = streamBufferBytes
    ) -> ResponseStream {
        let channels = StreamChannels(capacity: capacity)
        let failed = { (error: any Error) in
            // A request that cannot be built has no URL of its own.
            ResponseStream(started: Promise(error: error), channels: channels, url: endpoint.baseURL)
        }
        let configuration = configuration
        let built: RequestAssembly.Built
        do {
            built = try RequestAssembly.build(method, endpoint, body: body, headers: headers, for: self)
        } catch {
            return failed(error)
        }
        guard built.streamedBody == nil else {
            return failed(KringleError.invalidRequest("a streamed response cannot have a multipart body"))
        }
        let request = built.request
        var options = built.options
        options.bodyChannels = channels
        let started = runPipeline(for: request, options: options) { response in
            guard let channel = response.bodyChannel else {
                // Not reachable: every hop of a stream gets a channel.
                throw KringleError.invalidRequest("the transport delivered no body channel")
            }
            var head = Response(value: (), body: Data(), of: response)
            head.redaction = configuration.redaction
            return ResponseStream.Started(response: head, channel: channel)
        }
        return ResponseStream(started: started, channels: channels, url: request.url)
    }

    /// How much of a streamed body may wait for a slow reader: 1 MiB.
    static let streamBufferBytes = 1 << 20
}
