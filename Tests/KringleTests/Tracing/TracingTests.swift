import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// W3C Trace Context on every hop, and the spans an instrument receives.
@Suite("Tracing", .generousTimeLimit)
struct TracingTests {
    /// An instrument that puts every call in one trace and keeps the spans; with
    /// `numbersSpans`, it gives each span an id of its own, as a tracer does.
    final class SpanRecorder: KringleInstrument {
        let context: TraceContext?
        let numbersSpans: Bool
        let started = Recorder<KringleSpan>()
        let spans = Recorder<KringleSpan>()
        private let numbers = Counter()

        init(_ context: TraceContext?, numbersSpans: Bool = false) {
            self.context = context
            self.numbersSpans = numbersSpans
        }

        func traceContext() -> TraceContext? { context }

        func spanStarted(_ span: KringleSpan) -> String? {
            started.append(span)
            guard numbersSpans else { return nil }
            let number = String(numbers.increment(), radix: 16)
            return String(repeating: "a", count: 16 - number.count) + number
        }

        func spanEnded(_ span: KringleSpan) {
            spans.append(span)
        }
    }

    /// A server that keeps every request it receives, answering with `answer`.
    static func server(
        _ answer: @escaping @Sendable (LoopbackServer.Request) -> LoopbackServer.Response
    ) throws -> (LoopbackServer, Recorder<LoopbackServer.Request>) {
        let received = Recorder<LoopbackServer.Request>()
        let server = try LoopbackServer { request in
            received.append(request)
            return answer(request)
        }
        return (server, received)
    }

    static let caller = TraceContext(
        traceID: "4bf92f3577b34da6a3ce929d0e0e4736", parentSpanID: "00f067aa0ba902b7", state: "vendor=abc")

    @Test(
        "a call redirected once and retried once sends 3 requests with one trace id and 3 parent ids",
        arguments: TransportUnderTest.allCases)
    func redirectedAndRetried(_ subject: TransportUnderTest) async throws {
        let starts = Counter()
        let (server, received) = try Self.server { request in
            guard request.path == "/start" else { return .json(#"{"name": "Tom", "mood": "purring"}"#) }
            return starts.increment() == 1 ? .status(503) : .redirect(to: "/target")
        }
        defer { server.shutdown() }
        let recorder = SpanRecorder(Self.caller)
        let client = subject.client {
            $0.instrument = recorder
            $0.interceptors = [RetryPolicy(baseDelay: 0.02, maximumDelay: 0.04)]
        }
        let cat = try await client.get(server.clientEndpoint("/start"), as: ClientCat.self).valueWithin()
        #expect(cat.name == "Tom")

        #expect(received.elements.count == 3)
        let parents = try received.elements.map { request -> TraceContext in
            let header = try #require(request.header("traceparent"))
            let context = TraceContext(traceparent: header, tracestate: request.header("tracestate"))
            return try #require(context)
        }
        #expect(parents.map(\.traceID) == Array(repeating: Self.caller.traceID, count: 3))
        #expect(Set(parents.compactMap(\.parentSpanID)).count == 3)
        #expect(!parents.contains { $0.parentSpanID == Self.caller.parentSpanID })
        #expect(parents.allSatisfy { $0.state == "vendor=abc" && $0.isSampled })

        #expect(await eventually { recorder.spans.elements.contains { $0.kind == .call } })
        let spans = recorder.spans.elements
        let count = { (kind: KringleSpan.Kind) in spans.filter { $0.kind == kind }.count }
        #expect(count(.hop) == 3)
        #expect(count(.queue) == 3)
        #expect(count(.retry) == 1)
        #expect(count(.backoff) == 1)
        #expect(count(.decode) == 1)
        let call = try #require(spans.first { $0.kind == .call })
        #expect(call.parentSpanID == Self.caller.parentSpanID)
        #expect(spans.filter { $0.kind != .call }.allSatisfy { $0.parentSpanID == call.spanID })
        #expect(spans.allSatisfy { $0.traceID == Self.caller.traceID })
        // Each hop's span is the parent the request it sent named.
        #expect(Set(spans.filter { $0.kind == .hop }.map(\.spanID)) == Set(parents.compactMap(\.parentSpanID)))
        #expect(spans.first { $0.kind == .hop }?.attributes["http.response.status_code"] == "503")
        #expect(spans.first { $0.kind == .retry }?.attributes["http.request.resend_count"] == "1")
        #expect((spans.first { $0.kind == .backoff }?.duration ?? 0) >= 0.01)
    }

    @Test("a tracer's own span ids: each hop's traceparent names the span the tracer started; every span started ends")
    func tracerSpanIDs() async throws {
        let (server, received) = try Self.server { _ in .json(#"{"name": "Tom", "mood": "purring"}"#) }
        defer { server.shutdown() }
        let recorder = SpanRecorder(Self.caller, numbersSpans: true)
        let client = TransportUnderTest.curl.client { $0.instrument = recorder }
        _ = try await client.get(server.clientEndpoint("/cat"), as: ClientCat.self).valueWithin()
        #expect(await eventually { recorder.spans.elements.count == recorder.started.elements.count })
        let spans = recorder.spans.elements
        let hop = try #require(spans.first { $0.kind == .hop })
        #expect(hop.spanID.hasPrefix("aaaa"))
        let header = try #require(received.elements.first?.header("traceparent"))
        #expect(TraceContext(traceparent: header)?.parentSpanID == hop.spanID)
        let call = try #require(spans.first { $0.kind == .call })
        #expect(hop.parentSpanID == call.spanID)
        #expect(spans.allSatisfy { $0.spanID.hasPrefix("aaaa") }, "every span has the tracer's id")
        #expect(Set(spans.map(\.spanID)).count == spans.count)
    }

    @Test("an instrument that gives no context leaves the call untraced; no instrument, no header")
    func untraced() async throws {
        let (server, received) = try Self.server { _ in .json("{}") }
        defer { server.shutdown() }
        let recorder = SpanRecorder(nil)
        try await TransportUnderTest.curl.client { $0.instrument = recorder }.get(server.clientEndpoint("/a"))
            .valueWithin()
        try await TransportUnderTest.curl.client().get(server.clientEndpoint("/b")).valueWithin()
        #expect(received.elements.count == 2)
        #expect(
            received.elements.allSatisfy { request in
                request.header("traceparent") == nil
            })
        #expect(recorder.spans.elements.isEmpty)
    }

    @Test("traced calls still coalesce: the trace names the caller, not the resource")
    func tracedCallsCoalesce() async throws {
        let clock = ManualClock()
        let transport = StubTransport(clock: clock)
        transport.stub(.get, "/thing", with: budgetStub(200, delay: 1))
        let client = budgetClient(transport, clock: clock, retries: nil) {
            $0.coalescesRequests = true
            $0.instrument = SpanRecorder(.newTrace())
        }
        let calls = (0..<3).map { _ in client.get(BudgetEndpoint()) }
        #expect(await eventually { client.coalescer?.waitingCallers == 3 })
        clock.advance(by: 1)
        for call in calls { try await call.valueWithin() }
        #expect(transport.requests.count == 1)
    }

    @Test(
        "traceparent fields as W3C Trace Context §3.2 reads them",
        arguments: [
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", true),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", true),
            ("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false),
            ("00-00000000000000000000000000000000-00f067aa0ba902b7-01", false),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false),
            ("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", false),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", false),
            ("", false),
        ])
    func traceparent(_ field: String, valid: Bool) {
        let context = TraceContext(traceparent: field)
        #expect((context != nil) == valid)
        if let context, let span = context.parentSpanID {
            #expect(context.traceparent(spanID: span) == field)
        }
    }

    @Test("a new trace has a random, well-formed trace id")
    func newTrace() throws {
        let one = TraceContext.newTrace()
        #expect(one.traceID != TraceContext.newTrace().traceID)
        #expect(TraceContext(traceparent: one.traceparent(spanID: TraceContext.randomHex(bytes: 8))) != nil)
    }
}
