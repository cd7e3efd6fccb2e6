import Foundation

/// A stretch of a call's time, as a ``KringleInstrument`` records it: a span of the call's
/// trace, which your instrument turns into your tracer's span.
public struct KringleSpan: Sendable {
    /// What the span covers.
    public enum Kind: String, Sendable, Hashable {
        /// The whole call, from `get` (or `post`…) to its settlement: the other spans' parent.
        case call
        /// A hop's wait in the client before its transport took it: a ``HostThrottle``'s
        /// hold (near zero without one).
        case queue
        /// One request and its response (an attempt's first request, or a redirect's): its
        /// span id is the parent id of the `traceparent` it sent.
        case hop
        /// The decision to retry a failed attempt (the interceptors' `retry`).
        case retry
        /// The wait before a retry.
        case backoff
        /// The decoding of the final response into the caller's value.
        case decode
    }

    /// What the span covers.
    public var kind: Kind
    /// The trace's id.
    public var traceID: String
    /// This span's id, 16 hex digits.
    public var spanID: String
    /// The span it belongs to: the call's for its parts; the caller's (the
    /// ``TraceContext/parentSpanID``) for the call.
    public var parentSpanID: String?
    /// When it began, on the client's clock.
    public var start: Date
    /// How long it took, in seconds.
    public var duration: TimeInterval
    /// What happened, in OpenTelemetry's names where there is one (`http.request.method`,
    /// `url.full`, redacted as the client's log is, `http.response.status_code`,
    /// `http.request.resend_count`, `error.type`).
    public var attributes: [String: String]
}
