import Foundation
@_spi(KringleInternals) import KringleCore
@_spi(KringleInternals) import KringlePromise

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects each task's response and body and settles its promise, on one serial queue.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// A task's state. A class, so that a chunk is appended to the body in place: a struct
    /// copied out of the dictionary and back would copy the whole body so far for every
    /// chunk, making a large body cost time quadratic in its size.
    // Guarded by the delegate's `transfers` lock: read and changed only inside
    // `transfers.withLock`, or by the task's completion once it has taken it out of the
    // dictionary (the serial delegate queue delivers nothing for the task after that).
    private final class Transfer: @unchecked Sendable {
        let promise: Promise<HTTPResponse>
        var response: HTTPURLResponse?
        var body = Data()
        /// Where the body goes instead of `body`, for transfers to a file.
        var sink: FileHandle?
        /// Where the body goes instead, for a reader that takes it as it arrives; the
        /// promise then settles with the head.
        var channel: ResponseBodyChannel?
        var sinkError: (any Error)?
        var sent: Int64 = 0
        var received: Int64 = 0
        var progress: (@Sendable (TransferReport) -> Void)?
        /// The directory of a spooled body file, to delete with it once the task is over.
        var spool: URL?
        var limits = ResponseLimits.default
        var crossedLimit: ResponseLimits.Limit?
        /// When the task was registered, for the metrics the transport times itself.
        let start = Date()
        let startUptime = DispatchTime.now().uptimeNanoseconds
        var headUptime: UInt64?
        /// What URLSession measured itself, where it does (Apple platforms).
        var collected: TransferMetrics?

        /// The metrics of the finished exchange: URLSession's own where it gave them, else
        /// the moments this delegate saw.
        var metrics: TransferMetrics {
            if var collected {
                collected.decodedBodyBytes = received
                return collected
            }
            let seconds = { (uptime: UInt64) in TimeInterval(uptime &- self.startUptime) / 1e9 }
            return TransferMetrics(
                start: start, total: seconds(DispatchTime.now().uptimeNanoseconds),
                firstResponseByte: headUptime.map(seconds), decodedBodyBytes: received)
        }
        /// Why the transport's ``URLSessionTransport/ServerTrust`` refused the server, which
        /// URLSession then reports only as a cancellation.
        var trustFailure: TLSFailure?

        init(promise: Promise<HTTPResponse>) {
            self.promise = promise
        }

        /// Whether the body leaves memory as it arrives (a file, a reader), so that the
        /// download bound applies to it rather than the in-memory one.
        var isStreamedOut: Bool { sink != nil || channel != nil }

        /// The response without its body, as a streamed body's reader gets it first.
        func head(of response: HTTPURLResponse, url: URL?) -> HTTPResponse {
            HTTPResponse(
                statusCode: response.statusCode, headers: FoldedHeaders.unfold(response.allHeaderFields),
                url: response.url ?? url ?? URL(fileURLWithPath: "/"), metrics: metrics)
        }

        /// The body bytes the server sends in all (before decoding), at least as many as it
        /// has sent so far: FoundationNetworking reports only decoded bytes, so this is known
        /// only from the `Content-Length` of a coded body.
        var codedLength: Int64? {
            guard let response, response.value(forHTTPHeaderField: "Content-Encoding") != nil,
                response.expectedContentLength > 0
            else { return nil }
            return response.expectedContentLength
        }
    }

    private let transfers = Locked<[Int: Transfer]>([:])
    private let queue: PacedDelegateQueue
    private let serverTrust: URLSessionTransport.ServerTrust?

    init(queue: PacedDelegateQueue, serverTrust: URLSessionTransport.ServerTrust? = nil) {
        self.queue = queue
        self.serverTrust = serverTrust
    }

    func register(
        _ task: URLSessionTask,
        sink: FileHandle? = nil,
        spool: URL? = nil,
        limits: ResponseLimits = .default,
        channel: ResponseBodyChannel? = nil,
        progress: (@Sendable (TransferReport) -> Void)? = nil
    ) -> Promise<HTTPResponse> {
        let promise = Promise<HTTPResponse>.pending()
        let transfer = Transfer(promise: promise)
        transfer.sink = sink
        transfer.channel = channel
        transfer.spool = spool
        transfer.limits = limits
        transfer.progress = progress
        transfers.withLock { $0[task.taskIdentifier] = transfer }
        return promise
    }

    /// Cancels `task` unless it has completed.
    ///
    /// `URLSessionTask.cancel()` racing a completion inside FoundationNetworking can crash
    /// the process, so the cancel runs on the delegate queue, where completions are
    /// delivered, and only for a task whose completion has not been delivered yet. The
    /// promise is already rejected by then, so the caller never waits for this.
    func cancel(_ task: URLSessionTask) {
        queue.enqueue { [self] in
            let isRunning = transfers.withLock { $0[task.taskIdentifier] != nil }
            if isRunning, task.state == .running {
                queue.withoutPacing { task.cancel() }
            }
        }
    }

    // The client follows redirects itself, so that every hop is visible.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    // Authentication is the client's business (interceptors), so a 401 must come back as a
    // response. FoundationNetworking on Linux hangs on `.performDefaultHandling`, so the
    // challenge is cancelled and the task's cancellation is read as the 401 it was.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(Security)
        if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust {
            evaluateServerTrust(challenge, task: task, completionHandler: completionHandler)
            return
        }
        #endif
        // Either answer may cancel the task, which waits for FoundationNetworking's queue.
        guard let refused = challenge.failureResponse as? HTTPURLResponse else {
            queue.withoutPacing { completionHandler(.performDefaultHandling, nil) }
            return
        }
        transfers.withLock { $0[task.taskIdentifier]?.response = refused }
        queue.withoutPacing { completionHandler(.cancelAuthenticationChallenge, nil) }
    }

    #if canImport(Security)
    /// Apple platforms: the transport's ``URLSessionTransport/ServerTrust`` decides, or the
    /// system does when there is none.
    private func evaluateServerTrust(
        _ challenge: URLAuthenticationChallenge,
        task: URLSessionTask,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let serverTrust, let trust = challenge.protectionSpace.serverTrust else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        if let failure = serverTrust.evaluate(trust, host: challenge.protectionSpace.host) {
            transfers.withLock { $0[task.taskIdentifier]?.trustFailure = failure }
            completionHandler(.cancelAuthenticationChallenge, nil)
        } else {
            completionHandler(.useCredential, URLCredential(trust: trust))
        }
    }
    #endif

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let disposition = transfers.withLock { transfers -> HeadDisposition in
            guard let transfer = transfers[dataTask.taskIdentifier] else { return .allow }
            let response = response as? HTTPURLResponse
            transfer.response = response
            transfer.headUptime = DispatchTime.now().uptimeNanoseconds
            guard let response else { return .allow }
            // A body of a known length without a content coding crosses a bound before a
            // byte of it arrives.
            // No body follows a HEAD, a 204 or a 304, whatever Content-Length says
            // (RFC 9110 §6.4.1, §8.6).
            if response.expectedContentLength > 0, dataTask.originalRequest?.httpMethod != "HEAD",
                response.statusCode != 204, response.statusCode != 304,
                response.value(forHTTPHeaderField: "Content-Encoding") == nil,
                let crossed = transfer.limits.crossedInAdvance(
                    contentLength: response.expectedContentLength, toFile: transfer.isStreamedOut)
            {
                transfer.crossedLimit = crossed
                return .cancel
            }
            // A streamed body's reader gets the head now, the body chunk by chunk.
            guard transfer.channel != nil else { return .allow }
            return .streamedHead(transfer.promise, transfer.head(of: response, url: dataTask.originalRequest?.url))
        }
        switch disposition {
        case .cancel:
            // Cancelling waits for FoundationNetworking's queue.
            queue.withoutPacing { completionHandler(.cancel) }
        case .streamedHead(let promise, let head):
            promise.fulfill(head)
            completionHandler(.allow)
        case .allow:
            completionHandler(.allow)
        }
    }

    /// What becomes of a transfer once its head has arrived.
    private enum HeadDisposition {
        /// The announced length crosses a bound: the task stops before the body.
        case cancel
        /// A streamed body: its reader gets the head now.
        case streamedHead(Promise<HTTPResponse>, HTTPResponse)
        case allow
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let next = transfers.withLock { transfers -> AfterData in
            guard let transfer = transfers[dataTask.taskIdentifier], transfer.crossedLimit == nil else {
                return .nothing
            }
            transfer.received += Int64(data.count)
            if let crossed = transfer.limits.crossed(
                decoded: transfer.received, toFile: transfer.isStreamedOut, received: { transfer.codedLength })
            {
                // Stopped here: the bytes that crossed the bound are not kept.
                transfer.crossedLimit = crossed
                return .cancel
            }
            if let channel = transfer.channel {
                return .offer(channel)
            }
            if let sink = transfer.sink {
                // Written here, on the serial delegate queue: the disk paces the transfer
                // as far as FoundationNetworking lets it.
                do { try sink.write(contentsOf: data) } catch { transfer.sinkError = transfer.sinkError ?? error }
            } else {
                transfer.body.append(data)
            }
            guard let progress = transfer.progress else { return .nothing }
            let report = TransferReport(
                sent: transfer.sent,
                received: transfer.received,
                expectedToReceive: transfer.response.map(\.expectedContentLength).flatMap { $0 >= 0 ? $0 : nil },
                statusCode: transfer.response?.statusCode
            )
            return .report { progress(report) }
        }
        switch next {
        case .nothing: break
        case .report(let report): report()
        case .cancel: queue.withoutPacing { dataTask.cancel() }
        case .offer(let channel):
            // This queue is the stream's own (see `URLSessionTransport.transfer`): blocking
            // it holds back FoundationNetworking, which the paced queue makes wait in turn.
            while !channel.offer(data) {
                guard channel.waitForRoom() else {
                    queue.withoutPacing { dataTask.cancel() }
                    return
                }
            }
        }
    }

    /// What a chunk of body sets off once the lock is released.
    private enum AfterData {
        case nothing
        case report(() -> Void)
        case cancel
        case offer(ResponseBodyChannel)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        let report = transfers.withLock { transfers -> (() -> Void)? in
            guard let transfer = transfers[task.taskIdentifier] else { return nil }
            transfer.sent = totalBytesSent
            guard let progress = transfer.progress else { return nil }
            // A compressed body goes from its spooled copy, whose length URLSession knows.
            let report = TransferReport(
                sent: totalBytesSent, received: transfer.received, expectedToReceive: nil,
                statusCode: transfer.response?.statusCode,
                expectedToSend: totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil)
            return { progress(report) }
        }
        report?()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        try? transfer.sink?.close()
        if let spool = transfer.spool { try? FileManager.default.removeItem(at: spool) }
        let outcome = Self.outcome(of: transfer, task: task, error: error)
        // A streamed body's promise settled with the head already; its body ends here.
        transfer.promise.resolve(outcome)
        if let channel = transfer.channel {
            if case .failure(let error) = outcome { channel.finish(throwing: error) } else { channel.finish() }
        }
    }

    /// What a finished task's promise settles with.
    private static func outcome(
        of transfer: Transfer, task: URLSessionTask, error: (any Error)?
    ) -> Result<HTTPResponse, any Error> {
        if let crossed = transfer.crossedLimit {
            let url = transfer.response?.url ?? task.originalRequest?.url ?? URL(fileURLWithPath: "/")
            return .failure(KringleError.responseTooLarge(url, limit: crossed))
        }
        if let failure = transfer.trustFailure {
            let url = task.originalRequest?.url ?? URL(fileURLWithPath: "/")
            return .failure(KringleError.tls(url, failure, underlying: error ?? URLError(.serverCertificateUntrusted)))
        }
        if let sinkError = transfer.sinkError {
            return .failure(KringleError.transport(sinkError))
        }
        if let error, !(transfer.response?.statusCode == 401 && isCancellation(error)) {
            if transfer.channel?.isCancelled == true { return .failure(PromiseError.cancelled) }
            let head = transfer.response ?? task.response as? HTTPURLResponse
            // FoundationNetworking counts decoded bytes: as sent only without a coding.
            let isCoded = head?.value(forHTTPHeaderField: "Content-Encoding") != nil
            return .failure(
                URLSessionTransport.kringleError(
                    for: error, url: task.originalRequest?.url, head: head,
                    receivedBodyBytes: isCoded ? nil : transfer.received))
        }
        guard let response = transfer.response ?? task.response as? HTTPURLResponse else {
            return .failure(KringleError.transport(URLError(.badServerResponse)))
        }
        var complete = transfer.head(of: response, url: task.originalRequest?.url)
        complete.body = transfer.body
        return .success(complete)
    }

    #if !canImport(FoundationNetworking)
    // Apple platforms deliver the task's metrics before its completion.
    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        guard let last = metrics.transactionMetrics.last else { return }
        let collected = Self.transferMetrics(of: last, total: metrics.taskInterval.duration)
        transfers.withLock { $0[task.taskIdentifier]?.collected = collected }
    }

    /// One transaction's metrics as Kringle reports them: moments as durations from its
    /// fetch start.
    private static func transferMetrics(of transaction: URLSessionTaskTransactionMetrics, total: TimeInterval)
        -> TransferMetrics
    {
        let start = transaction.fetchStartDate ?? Date()
        let since = { (date: Date?) in date.map { $0.timeIntervalSince(start) } }
        let version: HTTPVersion? =
            switch transaction.networkProtocolName {
            case "http/1.0": .http1_0
            case "http/1.1": .http1_1
            case "h2": .http2
            case "h3": .http3
            default: nil
            }
        return TransferMetrics(
            start: start, total: since(transaction.responseEndDate) ?? total,
            domainLookup: since(transaction.domainLookupEndDate), connect: since(transaction.connectEndDate),
            secureConnect: since(transaction.secureConnectionEndDate), requestSent: since(transaction.requestStartDate),
            firstResponseByte: since(transaction.responseStartDate),
            requestBytes: transaction.countOfRequestHeaderBytesSent + transaction.countOfRequestBodyBytesSent,
            responseBytes: transaction.countOfResponseHeaderBytesReceived
                + transaction.countOfResponseBodyBytesReceived,
            httpVersion: version, remoteAddress: transaction.remoteAddress, remotePort: transaction.remotePort,
            reusedConnection: transaction.isReusedConnection)
    }
    #endif

    private static func isCancellation(_ error: any Error) -> Bool {
        [.cancelled, .userCancelledAuthentication].contains((error as? URLError)?.code)
    }
}
