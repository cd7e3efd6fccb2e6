import Foundation
@_spi(KringleInternals) import KringlePromise

/// A ``/KringleCore/Transport`` that answers from a HAR cassette and never touches the network
/// unless told to record.
///
/// Each request is matched against the cassette's entries as ``CassetteMatching`` says (by
/// method and URL by default, query order ignored, each entry once), after the same
/// redaction the recorder applied, so a request with a secret query item still matches its
/// entry. The entry's response is given back as a transport would: status, headers (its
/// `Set-Cookie` lines reach the client's jar), trailers and body; the client's redirects,
/// retries, validation, decoding, cache, downloads and streams run on it as on a live one.
/// A request no entry answers rejects, as every request does, with a
/// ``/KringleCore/KringleError``: ``/KringleCore/KringleError/transport(_:)`` wrapping
/// ``CassetteError/unmatchedRequest(_:)``, which names the request and the nearest entries
/// with what differs.
///
/// ```swift
/// let replay = try ReplayTransport(cassette: cassetteURL)
/// let client = NetworkClient(transport: replay)
/// let cat = try client.get(CatEndpoint.cuddle, as: Cat.self).wait()
/// ```
///
/// A browser's export replays as well: its pages and custom fields are ignored, a form's
/// `params` are its body.
///
/// A streamed body (``/KringleCore/NetworkClient/stream(_:method:body:)``,
/// ``/KringleCore/NetworkClient/events(_:reconnection:)``) is replayed in the chunks
/// it was recorded in, at once or at the recorded pace (``Pacing``). Every replayed
/// response's ``/KringleCore/TransferMetrics/isReplayed`` is `true`.
public final class ReplayTransport: Transport {
    /// Where answers come from.
    public enum Mode: Sendable {
        /// The cassette only; a request it lacks fails.
        case replayOnly
        /// The cassette, and for a request it lacks, the given transport, the exchange
        /// added to the cassette.
        case recordWhenMissing(any Transport)
        /// The given transport for every request, the cassette written afresh.
        case reRecordAll(any Transport)
    }

    /// The cassette's file, or `nil` for an archive given in memory.
    public let cassette: URL?
    /// How requests are matched to entries.
    public let matching: CassetteMatching
    /// When a streamed body's chunks are delivered.
    public let pacing: Pacing

    let redaction: CassetteRedaction
    let recorder: RecordingTransport?
    let recordsEverything: Bool
    let clock: any KringleClock
    private let state: Locked<State>

    private struct State {
        var entries: [HAR.Entry]
        var uses: [Int]
        var replayed = 0
    }

    /// A transport answering from the HAR file `cassette`.
    ///
    /// - Parameters:
    ///   - cassette: The HAR file. In ``Mode/replayOnly`` it must exist; in the recording
    ///     modes it is created if missing.
    ///   - mode: Replay only (the default), record what is missing, or record everything.
    ///   - matching: How requests are matched to entries.
    ///   - redaction: The redaction the cassette was recorded with, applied to requests
    ///     before they are matched, and to what the recording modes write.
    ///   - pacing: When a streamed body's chunks are delivered: at once (the default), or
    ///     at the times they were recorded, on `clock`.
    ///   - clock: The clock whose `now` starts a replayed exchange's metrics, and on which
    ///     ``Pacing/recorded`` waits.
    /// - Throws: ``CassetteError/unreadable(_:underlying:)`` for a missing or malformed file
    ///   (a missing one in ``Mode/replayOnly`` only); ``CassetteError/unwritable(_:underlying:)``
    ///   when ``Mode/reRecordAll(_:)`` cannot start the file afresh.
    public init(
        cassette: URL, mode: Mode = .replayOnly, matching: CassetteMatching = .default,
        redaction: CassetteRedaction = CassetteRedaction(), pacing: Pacing = .immediate,
        clock: any KringleClock = .system
    ) throws(CassetteError) {
        var entries: [HAR.Entry] = []
        var live: (any Transport)?
        switch mode {
        case .replayOnly:
            entries = try HAR.Archive.read(from: cassette).log.entries
        case .recordWhenMissing(let transport):
            live = transport
            if FileManager.default.fileExists(atPath: cassette.path) {
                entries = try HAR.Archive.read(from: cassette).log.entries
            }
        case .reRecordAll(let transport):
            live = transport
            try HAR.Archive(log: HAR.Log()).write(to: cassette)
        }
        let state = Locked(State(entries: entries, uses: Array(repeating: 0, count: entries.count)))
        self.cassette = cassette
        self.matching = matching
        self.redaction = redaction
        self.pacing = pacing
        self.clock = clock
        self.state = state
        recordsEverything = if case .reRecordAll = mode { true } else { false }
        recorder = live.map { transport in
            RecordingTransport(
                base: transport, cassette: cassette, redaction: redaction, writesEachExchange: true, clock: clock,
                onRecord: { entry in
                    // Recorded live: answers a repeat only when entries are repeatable.
                    state.withLock {
                        $0.entries.append(entry)
                        $0.uses.append(1)
                    }
                })
        }
    }

    /// A transport answering from `archive`, replay only; the other parameters are as for
    /// ``init(cassette:mode:matching:redaction:pacing:clock:)``.
    public init(
        archive: HAR.Archive, matching: CassetteMatching = .default,
        redaction: CassetteRedaction = CassetteRedaction(), pacing: Pacing = .immediate,
        clock: any KringleClock = .system
    ) {
        let entries = archive.log.entries
        cassette = nil
        self.matching = matching
        self.redaction = redaction
        self.pacing = pacing
        self.clock = clock
        state = Locked(State(entries: entries, uses: Array(repeating: 0, count: entries.count)))
        recorder = nil
        recordsEverything = false
    }

    /// How many requests were answered from the cassette.
    public var replayedCount: Int {
        state.withLock { $0.replayed }
    }

    /// The indices of the entries that have not answered yet: a test that expects to use
    /// its whole cassette checks this is empty.
    public var unusedEntries: [Int] {
        state.withLock { state in state.uses.indices.filter { state.uses[$0] == 0 } }
    }

    /// Answers `request` from the cassette (or, in a recording mode, from the network).
    ///
    /// - Returns: The recorded response. It rejects with ``/KringleCore/KringleError/transport(_:)``
    ///   wrapping ``CassetteError/unmatchedRequest(_:)`` when no entry answers, or
    ///   ``CassetteError/malformedEntry(_:reason:)`` when the entry's body does not decode;
    ///   or with the recorded failure of an exchange that had no response
    ///   (``/KringleCore/KringleError/timedOut(_:)``, or ``/KringleCore/KringleError/transport(_:)``
    ///   wrapping a ``RecordedFailure``).
    public func send(_ request: ValidatedRequest) -> Promise<HTTPResponse> {
        if recordsEverything, let recorder { return recorder.send(request) }
        switch choose(asked(request, body: request.request.body ?? Data())) {
        case .success(let (index, entry)):
            do {
                return Promise(try response(index, entry, for: request))
            } catch {
                return Promise(error: error)
            }
        case .failure(let mismatch):
            if let recorder { return recorder.send(request) }
            return Promise(error: KringleError.transport(CassetteError.unmatchedRequest(mismatch)))
        }
    }

    /// `request` with `body`, as the cassette's entries are matched against: redacted as
    /// they were.
    func asked(_ request: ValidatedRequest, body: Data) -> CassetteRequest {
        let url = redaction.url(request.url)
        return CassetteRequest(
            method: request.method.rawValue, url: url,
            headers: redaction.headers(request.request.headers.map { (name: $0.name, value: $0.value) }),
            body: redaction.body(
                body, isRequest: true, url: url,
                contentType: request.request.headers["Content-Type"]))
    }

    /// The entry that answers `request`, marked used; or why none does.
    func choose(_ request: CassetteRequest) -> Result<(Int, HAR.Entry), CassetteMismatch> {
        state.withLock { state in
            var candidates: [CassetteMismatch.Candidate] = []
            var reusable: Int?
            let next = state.uses.firstIndex(of: 0)
            for (index, entry) in state.entries.enumerated() {
                var reasons = matching.differences(request, entry)
                if reasons.isEmpty {
                    if state.uses[index] == 0, matching.order == .any || index == next {
                        state.uses[index] += 1
                        state.replayed += 1
                        return .success((index, entry))
                    }
                    if matching.reuse == .repeatable {
                        if reusable == nil { reusable = index }
                    } else if state.uses[index] > 0 {
                        reasons.append("already replayed")
                    } else {
                        reasons.append("out of the recorded order: entry #\(next ?? -1) comes first")
                    }
                }
                candidates.append(
                    CassetteMismatch.Candidate(
                        index: index, method: entry.request.method, url: entry.request.url, reasons: reasons))
            }
            if let reusable {
                state.uses[reusable] += 1
                state.replayed += 1
                return .success((reusable, state.entries[reusable]))
            }
            // Closest first: fewer differences, and a different method or path counts most.
            let nearest = candidates.sorted {
                weight($0) < weight($1) || (weight($0) == weight($1) && $0.index < $1.index)
            }
            return .failure(
                CassetteMismatch(
                    method: request.method, url: request.url.absoluteString, cassette: cassette?.lastPathComponent,
                    entryCount: state.entries.count, unusedCount: state.uses.filter { $0 == 0 }.count,
                    nearest: Array(nearest.prefix(3))))
        }
    }

    private func weight(_ candidate: CassetteMismatch.Candidate) -> Int {
        candidate.reasons.reduce(0) { total, reason in
            total + (reason.hasPrefix("method") || reason.hasPrefix("path") || reason.hasPrefix("origin") ? 10 : 1)
        }
    }

    /// The response `entry` recorded, as a transport gives it for `request`.
    func response(_ index: Int, _ entry: HAR.Entry, for request: ValidatedRequest) throws -> HTTPResponse {
        let recorded = entry.response
        guard recorded.status > 0 else {
            let failure = HAR.Failure(entry)
            if failure.kind == "timedOut" {
                throw KringleError.timedOut(failure.timeoutPhase.flatMap(TimeoutPhase.init(rawValue:)) ?? .total)
            }
            throw KringleError.transport(RecordedFailure(message: failure.error ?? "no response"))
        }
        let body: Data
        do {
            body = try recorded.content.body()
        } catch {
            throw KringleError.transport(
                CassetteError.malformedEntry(index, reason: "its response body is marked base64 but does not decode"))
        }
        var trailers = HTTPHeaders()
        if case .array(let fields)? = recorded.custom["_trailers"] {
            for case .object(let field) in fields {
                if case .string(let name)? = field["name"], case .string(let value)? = field["value"] {
                    trailers.add(name: name, value: value)
                }
            }
        }
        let metrics = TransferMetrics(
            start: clock.now, total: max(0, entry.time) / 1000, decodedBodyBytes: Int64(body.count),
            httpVersion: HTTPVersion(harVersion: recorded.httpVersion), remoteAddress: entry.serverIPAddress,
            remotePort: entry.connection.flatMap { Int($0) }, isReplayed: true)
        return HTTPResponse(
            statusCode: recorded.status,
            // HTTP/2 pseudo-header fields (`:status`), which browsers export, are not fields.
            headers: HTTPHeaders(recorded.headers.filter { !$0.name.hasPrefix(":") }.map { ($0.name, $0.value) }),
            trailers: trailers, body: body, url: request.url, metrics: metrics)
    }
}

extension HTTPVersion {
    /// The version a HAR file names, in Kringle's spelling (`HTTP/2`) or a browser's
    /// (`h2`, `http/2.0`).
    init?(harVersion: String) {
        switch harVersion.lowercased() {
        case "http/1.0": self = .http1_0
        case "http/1.1": self = .http1_1
        case "http/2", "http/2.0", "h2", "h2c": self = .http2
        case "http/3", "http/3.0", "h3": self = .http3
        default: return nil
        }
    }
}
