import Foundation

/// Receives the trace context and the spans of every call of a client
/// (``NetworkClient/Configuration-swift.struct/instrument``): Kringle's own small hook, which
/// a few lines adapt to swift-distributed-tracing or OpenTelemetry.
///
/// ```swift
/// struct PrintingInstrument: KringleInstrument {
///     func traceContext() -> TraceContext? { .newTrace() }
///     func spanEnded(_ span: KringleSpan) { print(span.kind, span.duration) }
/// }
/// ```
///
/// A tracer that makes its own span ids (as swift-distributed-tracing's and OpenTelemetry's
/// do) starts its span in ``spanStarted(_:)`` and returns the id it gave it: a hop's
/// `traceparent` then names a span the tracer records, and the server's spans hang beneath it.
///
/// They are called on the client's threads, some of them a transport's: return quickly and
/// hand slow work (exporting) to a queue of your own.
public protocol KringleInstrument: Sendable {
    /// The trace a call starting now belongs to, from your tracer's current context (a task
    /// local, say; this is called on the caller's thread, as the call starts); `nil` leaves
    /// the call untraced: no `traceparent`, no spans.
    func traceContext() -> TraceContext?
    /// A span of a call begins: its kind, trace, parent and start are set, its duration is
    /// zero and its id one of Kringle's. Return the id your tracer gave the span it started
    /// for it (16 lowercase hex digits), or `nil` to keep Kringle's. The default keeps it.
    func spanStarted(_ span: KringleSpan) -> String?
    /// A span of a call has ended: its id is the one ``spanStarted(_:)`` settled on, its
    /// duration and attributes are set.
    func spanEnded(_ span: KringleSpan)
}

extension KringleInstrument {
    /// Keeps Kringle's id.
    public func spanStarted(_ span: KringleSpan) -> String? { nil }
}
