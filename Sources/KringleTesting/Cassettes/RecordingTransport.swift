import Foundation
@_spi(KringleInternals) import KringlePromise

/// A ``/KringleCore/Transport`` that sends through another and writes every exchange to a HAR
/// cassette, for ``ReplayTransport`` to answer from later.
///
/// Each exchange the client makes is its own entry: every redirect hop and every retry, in
/// the order they finish. An entry holds the method, URL, HTTP version, request and response
/// headers (trailers in `_trailers`), both bodies (text as text, anything else in base64),
/// the cookies sent and set, and the timings and server address when the transport measured
/// them. An exchange that got no response is recorded too, with status 0 and its error in
/// the response's `_error`, as Chrome does. A streamed body (``/KringleCore/NetworkClient/stream(_:method:body:)``,
/// ``/KringleCore/NetworkClient/events(_:reconnection:)``) reaches its reader as it arrives, and
/// its entry records each chunk's size and time (`_kringleChunks` in the response's
/// `content`), for ``ReplayTransport`` to replay it in the same chunks and, if asked, at the
/// same pace.
///
/// Secrets never reach the file with the default ``CassetteRedaction``: the values of
/// `Authorization`, `Cookie`, `Set-Cookie` and the other headers of ``/KringleCore/Redaction``,
/// secret query items and URL passwords are replaced; give the client's redaction rules to
/// hide more, and a body hook for secrets in bodies.
///
/// The file is written after every exchange, atomically, appending to what it held:
///
/// ```swift
/// let recorder = RecordingTransport(recording: CurlTransport(), to: cassetteURL)
/// let client = NetworkClient(transport: recorder)
/// let cat = try client.get(CatEndpoint.cuddle, as: Cat.self).wait()
/// // cassetteURL now holds the GET and its response.
/// ```
public final class RecordingTransport: Transport {
    /// The cassette written.
    public let cassette: URL
    /// What is hidden before writing.
    public let redaction: CassetteRedaction

    private let base: any Transport
    private let clock: any KringleClock
    private let writesEachExchange: Bool
    private let recorded = Locked(Recorded())
    private let writing = Locked(())
    /// Told of each entry once it is written (``ReplayTransport`` keeps its own list current).
    let onRecord: (@Sendable (HAR.Entry) -> Void)?

    private struct Recorded {
        var entries: [HAR.Entry] = []
        /// Entries not yet in the file.
        var unwritten: [HAR.Entry] = []
        /// The file as this recorder last wrote it.
        var snapshot: HARFileSnapshot?
    }

    /// A recorder sending through `base` and appending to `cassette`.
    ///
    /// - Parameters:
    ///   - base: The transport that reaches the network (or a `LoopbackServer`).
    ///   - cassette: The HAR file; created with its folder if missing, appended to if not.
    ///   - redaction: What to hide; the client's default rules unless given.
    ///   - writesEachExchange: Whether the file is written after each exchange (the
    ///     default, so a test that crashes keeps what it recorded); `false` keeps entries in
    ///     memory until ``flush()``, for recording many exchanges cheaply.
    ///   - clock: Where an exchange's start is read when the transport gives no metrics.
    public convenience init(
        recording base: any Transport, to cassette: URL, redaction: CassetteRedaction = CassetteRedaction(),
        writesEachExchange: Bool = true, clock: any KringleClock = .system
    ) {
        self.init(
            base: base, cassette: cassette, redaction: redaction, writesEachExchange: writesEachExchange, clock: clock,
            onRecord: nil)
    }

    init(
        base: any Transport, cassette: URL, redaction: CassetteRedaction, writesEachExchange: Bool,
        clock: any KringleClock, onRecord: (@Sendable (HAR.Entry) -> Void)?
    ) {
        self.base = base
        self.cassette = cassette
        self.redaction = redaction
        self.writesEachExchange = writesEachExchange
        self.clock = clock
        self.onRecord = onRecord
    }

    /// The entries this recorder made, in order (the file may hold earlier ones too).
    public var entries: [HAR.Entry] {
        recorded.withLock { $0.entries }
    }

    /// Writes the entries not yet in the file.
    ///
    /// - Throws: ``CassetteError`` when the file cannot be read or written; the entries stay
    ///   for the next flush.
    public func flush() throws(CassetteError) {
        // One flush at a time, so that entries reach the file in the order they were taken.
        try writing.withLock { _ in Result { () throws(CassetteError) in try flushLocked() } }.get()
    }

    private func flushLocked() throws(CassetteError) {
        let pending = recorded.withLock { state in
            defer { state.unwritten = [] }
            return state.unwritten
        }
        guard !pending.isEmpty else { return }
        do {
            let snapshot = recorded.withLock { $0.snapshot }
            let written = try HAR.Archive.append(pending, to: cassette, after: snapshot)
            recorded.withLock { $0.snapshot = written }
        } catch {
            recorded.withLock { $0.unwritten = pending + $0.unwritten }
            throw error
        }
    }

    /// Sends `request` through the wrapped transport and records the exchange.
    ///
    /// - Returns: The wrapped transport's response or error, unchanged; or, when the
    ///   cassette cannot be written, ``/KringleCore/KringleError/transport(_:)`` wrapping the
    ///   ``CassetteError`` (a recording that silently lost an exchange would fail later, far
    ///   from the cause).
    public func send(_ request: ValidatedRequest) -> Promise<HTTPResponse> {
        let started = clock.now
        let body = request.request.body ?? Data()
        return base.send(request).mapResultInline { [self] result in
            try record(request.request, body: body, started: started, result.map { ($0, $0.body) })
            return try result.get()
        }
    }

    /// Sends `transfer` through the wrapped transport and records the exchange: a download's
    /// body is read back from its file; a streamed body goes to the reader chunk by chunk as
    /// it arrives, and is recorded once it ends, with each chunk's size and arrival time
    /// (see ``ReplayTransport/Pacing``), the entry's `time` and `receive` timing running to
    /// the end of the body (HAR 1.2: the whole exchange, not its head). When the reader leaves a stream early (a Server-Sent
    /// Events stream that never ends, say), what arrived until then is recorded, marked
    /// `"_kringleStreamEnd": "cancelled"`, and replays as a body that ends there.
    public func transfer(_ transfer: TransferRequest) -> Promise<HTTPResponse> {
        let started = clock.now
        let startedUptime = clock.uptimeNanoseconds
        let requestBody: Data
        do {
            requestBody = try transfer.body?.readAll() ?? transfer.request.request.body ?? Data()
        } catch {
            return Promise(error: error)
        }
        let request = transfer.request.request
        var forwarded = transfer
        let relay = transfer.responseBodyChannel.map { reader in
            let rules = redaction.rules
            return RecordingRelay(
                reader: reader, clock: clock, started: startedUptime,
                describe: { rules.redacting($0).description },
                record: { [self] head, body, timeline throws(KringleError) in
                    try record(request, body: requestBody, started: started, .success((head, body)), timeline: timeline)
                })
        }
        if let relay {
            forwarded.responseBodyChannel = relay.inner
            relay.start()
        }
        let file = transfer.responseBodyFile
        return base.transfer(forwarded).mapResultInline { [self] result in
            if let relay {
                // The body is recorded once it has ended, by the relay.
                switch result {
                case .success(let head): relay.headArrived(head)
                case .failure(let error):
                    relay.headFailed()
                    try record(request, body: requestBody, started: started, .failure(error))
                }
                return try result.get()
            }
            let outcome = result.map { response -> (HTTPResponse, Data) in
                if let file, response.body.isEmpty {
                    return (response, (try? Data(contentsOf: file)) ?? Data())
                }
                return (response, response.body)
            }
            try record(request, body: requestBody, started: started, outcome)
            return try result.get()
        }
    }

    private func record(
        _ request: HTTPRequest, body: Data, started: Date, _ outcome: Result<(HTTPResponse, Data), any Error>,
        timeline: StreamTimeline? = nil
    ) throws(KringleError) {
        // A cancelled exchange is the caller's doing, not the server's answer.
        if case .failure(let error) = outcome, error is PromiseError { return }
        let exchange = RecordedExchange(
            request: request, requestBody: body, started: started,
            outcome: outcome.map { (response: $0.0, body: $0.1) })
        var entry = HAR.Entry(exchange, redaction: redaction)
        timeline?.write(to: &entry)
        recorded.withLock {
            $0.entries.append(entry)
            $0.unwritten.append(entry)
        }
        onRecord?(entry)
        guard writesEachExchange else { return }
        do {
            try flush()
        } catch {
            // The request rejects with a KringleError, as every request does.
            throw .transport(error)
        }
    }
}
