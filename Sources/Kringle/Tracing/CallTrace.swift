import Foundation
@_spi(KringleInternals) import KringlePromise

/// One traced call: its context, its span, and where its spans go. Made as the call starts,
/// for a client with an instrument that traces it; carried in ``TransferOptions/trace``.
final class CallTrace: Sendable {
    /// When a span began.
    struct Start: Sendable {
        let date: Date
        let uptime: UInt64
    }

    let context: TraceContext
    /// The call's own span, every other span's parent.
    let callSpanID = TraceContext.randomHex(bytes: 8)
    let callStart: Start
    /// When the hop in flight began: a call's hops run one after the other, so one is
    /// enough (its queue span ends as the transport takes it).
    var hopStart: Start? {
        get { currentHop.withLock { $0 } }
        set { currentHop.withLock { $0 = newValue } }
    }
    private let currentHop = Locked<Start?>(nil)
    private let instrument: any KringleInstrument
    private let clock: any KringleClock
    private let redaction: Redaction

    init(context: TraceContext, instrument: any KringleInstrument, clock: any KringleClock, redaction: Redaction) {
        self.context = context
        self.instrument = instrument
        self.clock = clock
        self.redaction = redaction
        callStart = Start(date: clock.now, uptime: clock.uptimeNanoseconds)
    }

    /// Now, as a span's start.
    func now() -> Start {
        Start(date: clock.now, uptime: clock.uptimeNanoseconds)
    }

    /// Records a span of `kind` from `start` to now, within the call's span (the call's own
    /// within the caller's).
    func record(
        _ kind: KringleSpan.Kind, spanID: String = TraceContext.randomHex(bytes: 8), from start: Start,
        attributes: [String: String] = [:]
    ) {
        instrument.record(
            KringleSpan(
                kind: kind, traceID: context.traceID, spanID: spanID,
                parentSpanID: kind == .call ? context.parentSpanID : callSpanID, start: start.date,
                duration: Double(clock.uptimeNanoseconds &- start.uptime) / 1e9, attributes: attributes))
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
            "http.request.method": request.method,
            "url.full": request.url.map { redaction.redacting($0).description } ?? "",
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
