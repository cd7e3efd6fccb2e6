import Foundation
@_spi(KringleInternals) import KringlePromise

// Where the client hands events to its logger, and the one rule for it (see `KringleLogger`):
// the logger runs as a promise handler does, on `DispatchQueue.promises` through the promise
// library's rule for user code, never on a timer's thread, under a lock, or on a transport's
// thread while it drives (a curl thread lent to that queue hands its seat on if the logger
// blocks: DrivingSeat.swift). A logger may block, even on a request of the same client: the
// thread that logger holds is one nothing else needs. The events of a call are steps of its chain, so they arrive in
// order and before the call's promise settles (a cancellation's event excepted).
//
// The events used to be logged inline, on the thread that settled each step: a response on
// the thread of libcurl's driver or URLSession's delegate queue, a failure on a timer's. A
// logger that waited there for a request of its own waited for a thread it held itself.

extension NetworkClient {
    /// Hands `events` to the logger as user code on `DispatchQueue.promises`; the promise
    /// fulfils once the logger has returned. Call it only when there is a logger.
    @usableFromInline
    func delivering(_ events: [KringleLogEvent]) -> Promise<Void> {
        let logger = configuration.logger
        // `map` runs its closure on the queue through the rule for user code, which keeps
        // nothing back for the thread it blocks (KringlePromise's UserCode.swift).
        return Promise(()).map(on: .promises) { _ in
            for event in events { logger?.log(event) }
        }
    }

    /// Hands an event to the logger, if there is one, on the calling thread: only for a
    /// thread the promise library gave to user code (a handler on `DispatchQueue.promises`).
    func log(_ event: @autoclosure () -> KringleLogEvent) {
        configuration.logger?.log(event())
    }

    /// A URL as a log event shows it: redacted.
    private func loggedURL(_ url: URL?) -> Redacted<URL> {
        configuration.redaction.redacting(url ?? URL(fileURLWithPath: "/"))
    }

    /// One hop's `exchange` with its events: the request as sent, delivered before it goes
    /// out; then a response with the time it took (and its body's compression), delivered
    /// before the hop goes on. A failure passes on at once: the call's failure event says it.
    func logging(
        _ request: ValidatedRequest, options: TransferOptions,
        _ exchange: @escaping @Sendable () -> Promise<HTTPResponse>
    ) -> Promise<HTTPResponse> {
        let sent = KringleLogEvent.requestSent(
            method: request.request.method.rawValue,
            url: loggedURL(request.url),
            headers: configuration.redaction.redacting(request.request.headers))
        return delivering([sent]).flatMapResultInline { _ in
            let start = self.configuration.clock.uptimeNanoseconds
            return exchange().flatMapResultInline { result in
                let response = try result.get()
                var events: [KringleLogEvent] = []
                if let sizes = CompressedBodySizes(request, options: options) {
                    events.append(self.compressedEvent(request.request, sizes))
                }
                events.append(self.receivedEvent(response, for: request.request, since: start))
                return self.delivering(events).mapResultInline { _ in response }
            }
        }
    }

    /// `decoded`, the call's outcome, after its failure event if it fails; a cancellation's
    /// event follows the cancellation.
    @usableFromInline
    func loggingFailure<Output: Sendable>(of decoded: Promise<Output>, for request: HTTPRequest) -> Promise<Output> {
        let logged = decoded.continueInline { result -> Outcome<Output> in
            guard case .failure(let error) = result else { return .settle(result) }
            return .adopt(self.delivering([self.failureEvent(request, error)]).mapResultInline { _ in throw error })
        }
        logged.onCancel { _ = self.delivering([self.failureEvent(request, PromiseError.cancelled)]) }
        return logged
    }

    /// `response` after its event, for an answer of the client's cache.
    func logging(_ response: HTTPResponse, answeredBy status: CacheStatus, for request: HTTPRequest)
        -> Promise<HTTPResponse>
    {
        guard isLogging else { return Promise(response) }
        let answered = KringleLogEvent.cacheAnswered(
            method: request.method.rawValue, url: configuration.redaction.redacting(response.url),
            statusCode: response.statusCode, cacheStatus: status)
        return delivering([answered]).mapResultInline { _ in response }
    }

    private func compressedEvent(_ request: HTTPRequest, _ sizes: CompressedBodySizes) -> KringleLogEvent {
        .requestBodyCompressed(method: request.method.rawValue, url: loggedURL(request.url), sizes: sizes)
    }

    private func receivedEvent(_ response: HTTPResponse, for request: HTTPRequest, since start: UInt64)
        -> KringleLogEvent
    {
        .responseReceived(
            method: request.method.rawValue,
            url: loggedURL(response.url),
            statusCode: response.statusCode,
            duration: Double(configuration.clock.uptimeNanoseconds &- start) / 1e9,
            bodySize: response.body.count,
            headers: configuration.redaction.redacting(response.headers),
            metrics: response.metrics
        )
    }

    /// Logged from a handler of the retry decision, on `DispatchQueue.promises`.
    func logRetry(_ request: HTTPRequest, attempt: Int, reason: any Error, delay: TimeInterval) {
        log(
            .retry(
                method: request.method.rawValue,
                url: loggedURL(request.url),
                attempt: attempt,
                reason: configuration.redaction.redacting(reason),
                delay: delay
            ))
    }

    func logRetryDenied(_ request: HTTPRequest, attempt: Int, reason: any Error, denial: RetryDenial) {
        log(
            .retryDenied(
                method: request.method.rawValue,
                url: loggedURL(request.url),
                attempt: attempt,
                reason: configuration.redaction.redacting(reason),
                denial: denial
            ))
    }

    private func failureEvent(_ request: HTTPRequest, _ error: any Error) -> KringleLogEvent {
        .failure(
            method: request.method.rawValue, url: loggedURL(request.url),
            error: configuration.redaction.redacting(error))
    }

    /// Tells the logger, once, which settings of the configuration the transport cannot
    /// honour (``ClientSending/ignoredSettings(of:)``); called as the client is made. A
    /// transport of the caller's own is not asked: what it honours is its own to say.
    func reportIgnoredSettings() {
        guard isLogging, let sending = clientSendingTransport else { return }
        let ignored = sending.ignoredSettings(of: configuration)
        guard !ignored.isEmpty else { return }
        let transport = String(describing: type(of: sending))
        _ = delivering(
            ignored.map { .settingIgnored(setting: $0.setting, transport: transport, reason: $0.reason) })
    }
}
