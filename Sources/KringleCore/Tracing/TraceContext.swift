import Foundation

/// The trace a call belongs to, as W3C Trace Context carries it between services
/// (https://www.w3.org/TR/trace-context/): a trace id, the span the call is made within,
/// whether the trace is sampled, and the vendors' `tracestate`.
///
/// Your ``KringleInstrument`` hands it to the client as each call starts, read from your
/// tracer's current context; the client sends it on every hop as `traceparent` (with the
/// hop's own span id as the parent) and `tracestate`.
public struct TraceContext: Sendable, Hashable {
    /// 32 lowercase hex digits, not all zero (§3.2.2.3).
    public var traceID: String
    /// The span the call is made within, 16 lowercase hex digits; `nil` for a call that
    /// starts a trace.
    public var parentSpanID: String?
    /// Whether the trace is sampled (the `sampled` flag, §3.2.2.5).
    public var isSampled: Bool
    /// The `tracestate` field (§3.3), sent on as it is.
    public var state: String?

    /// A context within the span `parentSpanID` of the trace `traceID`.
    public init(traceID: String, parentSpanID: String? = nil, isSampled: Bool = true, state: String? = nil) {
        self.traceID = traceID
        self.parentSpanID = parentSpanID
        self.isSampled = isSampled
        self.state = state
    }

    /// A new trace, with a random trace id.
    public static func newTrace(isSampled: Bool = true) -> TraceContext {
        TraceContext(traceID: randomHex(bytes: 16), isSampled: isSampled)
    }

    /// The context a `traceparent` field (and its `tracestate`) carries, as a server reads
    /// what called it; `nil` when the field is not a version-00 `traceparent` (§3.2.2) with
    /// ids that are not all zero.
    public init?(traceparent: String, tracestate: String? = nil) {
        let parts = traceparent.trimmingCharacters(in: .whitespaces).split(
            separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "00", Self.isHex(parts[1], count: 32), Self.isHex(parts[2], count: 16),
            Self.isHex(parts[3], count: 2), parts[1].contains(where: { $0 != "0" }),
            parts[2].contains(where: { $0 != "0" }), let flags = UInt8(parts[3], radix: 16)
        else { return nil }
        self.init(
            traceID: String(parts[1]), parentSpanID: String(parts[2]), isSampled: flags & 1 == 1, state: tracestate)
    }

    /// The `traceparent` field for a request the span `spanID` sends (§3.2).
    func traceparent(spanID: String) -> String {
        "00-\(traceID)-\(spanID)-\(isSampled ? "01" : "00")"
    }

    /// `id` when it is a span id (16 lowercase hex digits, not all zero), else `nil`.
    static func spanID(_ id: String) -> String? {
        isHex(Substring(id), count: 16) && id.contains { $0 != "0" } ? id : nil
    }

    /// `bytes` random bytes as lowercase hex, never all zero.
    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        while true {
            let values = (0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) }
            guard values.contains(where: { $0 != 0 }) else { continue }
            return values.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        }
    }

    private static func isHex(_ text: Substring, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
