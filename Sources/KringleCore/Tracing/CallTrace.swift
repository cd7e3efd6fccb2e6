import Foundation
@_spi(KringleInternals) import KringlePromise

/// One traced call: its context, its span, and where its spans go. Made as the call starts,
/// for a client with an instrument that traces it; carried in ``TransferOptions/trace``.
@usableFromInline
final class CallTrace: Sendable {
    /// A span begun and not yet ended.
    struct Span: Sendable {
        let kind: KringleSpan.Kind
        /// Its id: the instrument's, or one of Kringle's when the instrument gave none.
        let id: String
        let parentID: String?
        let date: Date
        let uptime: UInt64
    }

    let context: TraceContext
    /// The call's own span, every other span's parent.
    let call: Span
    private let instrument: any KringleInstrument
    private let clock: any KringleClock
    private let redaction: Redaction
    /// The queue span of the hop in flight, until its transport takes it: a call's hops run
    /// one at a time, so one is enough.
    private let queue = Locked<Span?>(nil)

    init(context: TraceContext, instrument: any KringleInstrument, clock: any KringleClock, redaction: Redaction) {
        self.context = context
        self.instrument = instrument
        self.clock = clock
        self.redaction = redaction
        call = Self.begin(.call, parentID: context.parentSpanID, context: context, instrument: instrument, clock: clock)
    }

    /// Begins a span of `kind` within the call's, telling the instrument.
    func begin(_ kind: KringleSpan.Kind) -> Span {
        Self.begin(kind, parentID: call.id, context: context, instrument: instrument, clock: clock)
    }

    private static func begin(
        _ kind: KringleSpan.Kind, parentID: String?, context: TraceContext, instrument: any KringleInstrument,
        clock: any KringleClock
    ) -> Span {
        let date = clock.now
        let ours = TraceContext.randomHex(bytes: 8)
        let started = KringleSpan(
            kind: kind, traceID: context.traceID, spanID: ours, parentSpanID: parentID, start: date, duration: 0,
            attributes: [:])
        let id = instrument.spanStarted(started).flatMap(TraceContext.spanID) ?? ours
        return Span(kind: kind, id: id, parentID: parentID, date: date, uptime: clock.uptimeNanoseconds)
    }

    /// Ends `span` now, with `attributes`.
    func end(_ span: Span, attributes: [String: String] = [:]) {
        instrument.spanEnded(
            KringleSpan(
                kind: span.kind, traceID: context.traceID, spanID: span.id, parentSpanID: span.parentID,
                start: span.date, duration: Double(clock.uptimeNanoseconds &- span.uptime) / 1e9,
                attributes: attributes))
    }

    /// Begins the queue span of a hop starting now.
    func beginQueue() {
        let span = begin(.queue)
        queue.withLock { $0 = span }
    }

    /// Ends the queue span of the hop in flight, if it is still open: as its transport takes
    /// the request, or as the hop ends without one taking it (a cached answer, a refusal).
    func endQueue() {
        if let span = queue.withLock({ $0.take() }) { end(span) }
    }

    /// `promise`, with `end` called once as it settles, cancelled included.
    func spanning<Value: Sendable>(
        _ promise: Promise<Value>, end: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> Promise<Value> {
        let ended = promise.mapResultInline { result in
            end(result)
            return try result.get()
        }
        // A promise cancelled before it settles never runs the step above.
        ended.onCancel { end(.failure(PromiseError.cancelled)) }
        return ended
    }

    /// The attributes of a request: its method and URL, redacted.
    func attributes(of request: ValidatedRequest) -> [String: String] {
        [
            "http.request.method": request.method.rawValue,
            "url.full": redaction.redacting(request.url).description,
        ]
    }

    /// `attributes` with what `result` says: the status, or the error's type.
    static func attributes<Value>(_ attributes: [String: String], adding result: Result<Value, any Error>)
        -> [String: String]
    {
        var attributes = attributes
        switch result {
        case .success(let value as HTTPResponse):
            attributes["http.response.status_code"] = String(value.statusCode)
        case .success:
            break
        case .failure(let error):
            if case KringleError.unacceptableStatusCode(let status, _) = error {
                attributes["http.response.status_code"] = String(status)
            }
            attributes["error.type"] = error.isCancellation ? "cancelled" : String(describing: type(of: error))
        }
        return attributes
    }
}
