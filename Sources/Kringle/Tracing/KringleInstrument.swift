import Foundation

/// Receives the trace context and the spans of every call of a client
/// (``NetworkClient/Configuration-swift.struct/instrument``): Kringle's own small hook, which
/// a few lines adapt to swift-distributed-tracing or OpenTelemetry.
///
/// ```swift
/// struct PrintingInstrument: KringleInstrument {
///     func traceContext() -> TraceContext? { .newTrace() }
///     func record(_ span: KringleSpan) { print(span.kind, span.duration) }
/// }
/// ```
///
/// Both are called on the client's threads, some of them a transport's: return quickly and
/// hand slow work (exporting) to a queue of your own.
public protocol KringleInstrument: Sendable {
    /// The trace a call starting now belongs to, from your tracer's current context (a task
    /// local, say); `nil` leaves the call untraced: no `traceparent`, no spans.
    func traceContext() -> TraceContext?
    /// A span of a call has ended.
    func record(_ span: KringleSpan)
}
