import Foundation
@_spi(KringleInternals) import KringlePromise

// The hop's call to the transport (stage 3 of NetworkClient+Pipeline.swift), within the attempt's
// deadline and the client's response limits.

extension NetworkClient {
    /// The transport's exchange, logged when there is a logger: the request as sent, and
    /// the response with the time it took; for a client with a ``HostThrottle``, once the
    /// throttle lets the request go (NetworkClient+Throttle.swift); for a client that
    /// coalesces, shared with identical requests in flight (NetworkClient+Coalescing.swift).
    ///
    /// - Parameter trace: The call's trace, whose hop's queue span ends as the transport
    ///   takes the request.
    func loggedExchange(_ request: ValidatedRequest, options: TransferOptions, trace: CallTrace?)
        -> Promise<HTTPResponse>
    {
        guard isCoalescing, let coalescer, options.coalesces, RequestCoalescer.mayShare(request, options: options)
        else {
            return throttledExchange(request, options: options, trace: trace)
        }
        return coalesced(request, options: options, trace: trace, by: coalescer)
    }

    /// The exchange once the client's ``HostThrottle``, if it has one, lets it go.
    func throttledExchange(_ request: ValidatedRequest, options: TransferOptions, trace: CallTrace?)
        -> Promise<HTTPResponse>
    {
        guard isThrottled, let throttle = configuration.throttle else {
            return unthrottled(request, options: options, trace: trace)
        }
        return throttled(request, options: options, by: throttle) {
            self.unthrottled(request, options: options, trace: trace)
        }
    }

    private func unthrottled(_ request: ValidatedRequest, options: TransferOptions, trace: CallTrace?)
        -> Promise<HTTPResponse>
    {
        trace?.endQueue()
        guard isLogging else { return exchange(request, options: options) }
        // Events go to the logger off this thread (NetworkClient+Logging.swift).
        return logging(request, options: options) { self.exchange(request, options: options) }
    }

    /// The transport's exchange for one hop, within the client's time limits: the attempt's
    /// deadline and the connect timeout for a plain request; the longest silence for a
    /// transfer, and for a plain request when the client has an idle timeout.
    private func exchange(_ request: ValidatedRequest, options: TransferOptions) -> Promise<HTTPResponse> {
        let limits = configuration.responseLimits
        let deadline = options.deadline
        // A redirect that came as the time ran out goes no further.
        if let deadline, deadline.hasPassed(on: configuration.clock) {
            return Promise(error: KringleError.timedOut(.total))
        }
        let connectTimeout = configuration.connectTimeout
        // Silence is timed from progress reports, which only `transfer` gives.
        guard options.isStreaming || configuration.idleTimeout != nil else {
            guard let sending = clientSendingTransport else {
                return transport.send(request).timeout(at: deadline, clock: configuration.clock)
                    .mapResultInline { result in try Self.checked(result.get(), against: limits) }
            }
            // The transport keeps the time itself (the whole of it, a wait for a connection
            // included) when it can and reads the client's clock.
            if transportKeepsTime {
                return sending.send(request, deadline: deadline, connectTimeout: connectTimeout, limits: limits)
            }
            return sending.send(request, deadline: nil, connectTimeout: connectTimeout, limits: limits)
                .timeout(at: deadline, clock: configuration.clock)
        }
        let responseBodyHandle: FileHandle?
        do {
            responseBodyHandle = try options.responseBodyFile?.handleForTransfer()
        } catch {
            return Promise(error: error)
        }
        let watchdog = IdleWatchdog(
            timeout: configuration.idleTimeout ?? timeout(of: options), clock: configuration.clock)
        let progress = options.progress
        let channel = options.bodyChannels?.make()
        var transfer = TransferRequest(
            request: request,
            body: options.body,
            responseBodyFile: options.responseBodyFile?.url,
            responseBodyHandle: responseBodyHandle,
            limits: limits,
            responseBodyChannel: channel
        ) { report in
            watchdog?.touch()
            progress?.update(report, acceptable: self.configuration.acceptableStatusCodes)
        }
        transfer.connectTimeout = connectTimeout
        // For a streamed body, the watchdog times the head alone: the transfer's promise
        // settles with it. A plain request keeps its total limit too.
        let sent =
            if let upgrade = options.bodyChannels?.webSocket {
                openWebSocket(transfer, upgrade: upgrade)
            } else {
                transport.transfer(transfer)
            }
        let transferred = (watchdog?.guarding(sent) ?? sent).timeout(at: deadline, clock: configuration.clock)
        if let channel {
            transferred.onCancel { channel.cancel() }
            return transferred.mapResultInline { result in
                var response = try result.get()
                response.bodyChannel = channel
                return response
            }
        }
        guard clientSendingTransport == nil else { return transferred }
        let file = options.responseBodyFile
        return transferred.mapResultInline { result in try Self.checked(result.get(), against: limits, file: file) }
    }

    /// A response from a transport that does not hold bodies within the limits itself,
    /// checked once it has arrived (its memory is spent by then, but the caller still gets
    /// the error the limit promises).
    private static func checked(
        _ response: HTTPResponse, against limits: ResponseLimits, file: DownloadTemporaryFile? = nil
    ) throws -> HTTPResponse {
        let decoded = file?.size ?? Int64(response.body.count)
        if let crossed = limits.crossed(decoded: decoded, toFile: file != nil, received: { nil }) {
            throw KringleError.responseTooLarge(response.url, limit: crossed)
        }
        return response
    }
}

extension Promise {
    /// This promise, rejected with `PromiseError.timedOut` unless it settles before
    /// `deadline` on `clock`; this promise itself when there is no limit (`nil`).
    func timeout(at deadline: Deadline?, clock: any KringleClock) -> Promise<Value> {
        guard let deadline else { return self }
        return timeout(deadline.timeLeft(on: clock), clock: clock)
    }
}
