import Foundation
@_spi(KringleInternals) import KringlePromise

/// One attempt of a call, stages 2 to 6 of the pipeline (NetworkClient+Pipeline.swift):
/// the interceptors adapt the request (``start()``), its hops run (``Hop``), and a
/// failure goes to the interceptors' retry decision (``decide(_:)``), which may start the
/// next attempt.
///
/// Every client takes this one path. A client without interceptors has nothing to adapt
/// and nothing that asks for a retry: its attempt is its first hop, made at once, and
/// decides as that hop does (``direct(_:)``, which costs nothing more than the hop).
///
/// The decode step (``DecodeStep``) makes the decision on the thread that delivered the
/// first hop's answer, in the same step as the decode: a promise of the decided response
/// in between would cost a copy of the response into and out of it on every request.
@usableFromInline
enum Attempt: Sendable {
    /// The attempt of a client without interceptors: its first hop.
    case direct(NetworkClient.Hop)
    /// The attempt of a client with interceptors, which adapt its request first and
    /// may retry it.
    case intercepted(Intercepted)

    /// The attempt `number` (from 1) of `request`, after the attempts that made
    /// `earlier` exchanges.
    @usableFromInline
    init(
        client: NetworkClient, request: ValidatedRequest, options: TransferOptions, number: Int = 1,
        earlier: [RequestMetrics.Exchange] = [], trace: CallTrace? = nil
    ) {
        // A first attempt starts the call's trace; a later one carries it. The flag is read
        // here so that an untraced call makes no call at all for its trace.
        let trace = number == 1 && client.isInstrumented ? client.startTrace() : trace
        guard client.configuration.interceptors.isEmpty else {
            self = .intercepted(
                Intercepted(
                    client: client, request: request, options: options, number: number, earlier: earlier, trace: trace))
            return
        }
        self = .direct(
            NetworkClient.Hop(
                client: client, request: request, options: options, attempt: number, earlier: earlier, trace: trace)
        )
    }

    /// The first hop's answer as it came, after 2. adapt when there are interceptors.
    @usableFromInline
    func start() -> Promise<HTTPResponse> {
        switch self {
        case .direct(let hop): hop.start()
        case .intercepted(let attempt): attempt.start()
        }
    }

    /// The first hop's decision on its answer (``Hop/decide(_:)``: a redirect, a final
    /// response, or a failure), and for a failure, when there are interceptors, 6. retry?
    @usableFromInline
    func decide(_ result: Result<HTTPResponse, any Error>) throws -> Outcome<HTTPResponse> {
        switch self {
        case .direct(let hop): try hop.decide(result)
        case .intercepted(let attempt): try attempt.decide(result)
        }
    }

    /// `call`, rejected with ``KringleError/timedOut(_:)`` (``TimeoutPhase/total``) and
    /// cancelled when the call's deadline passes: for a client with interceptors, whose
    /// `adapt` and `retry` are the user's promises, which no transport's limit bounds. A
    /// client without interceptors has only hops, each bounded by the deadline already.
    ///
    /// For a traced call, the call's span is recorded as it settles.
    @usableFromInline
    func bounded<Value: Sendable>(_ call: Promise<Value>) -> Promise<Value> {
        switch self {
        case .direct(let hop):
            // Every request of a client without interceptors comes this way: it returns at once.
            guard let trace = hop.trace else { return call }
            return Self.spanningCall(call, of: hop.request, trace: trace)
        case .intercepted(let attempt):
            var bounded = call
            if let deadline = attempt.options.deadline {
                let clock = attempt.client.configuration.clock
                bounded = call.timeout(deadline.timeLeft(on: clock), clock: clock).mapResultInline { result in
                    if case .failure(PromiseError.timedOut) = result { throw KringleError.timedOut(.total) }
                    return try result.get()
                }
            }
            guard let trace = attempt.trace else { return bounded }
            return Self.spanningCall(bounded, of: attempt.request, trace: trace)
        }
    }

    /// `call`, ending the call's span as it settles.
    private static func spanningCall<Value: Sendable>(
        _ call: Promise<Value>, of request: ValidatedRequest, trace: CallTrace
    ) -> Promise<Value> {
        let attributes = trace.attributes(of: request)
        return trace.spanning(call) { result in
            trace.end(trace.call, attributes: CallTrace.attributes(attributes, adding: result))
        }
    }

    /// Whether the call is traced: its decode is then a span.
    @inlinable
    var isTraced: Bool {
        switch self {
        case .direct(let hop): hop.trace != nil
        case .intercepted(let attempt): attempt.trace != nil
        }
    }

    /// `decode`'s value, recorded as the call's decode span.
    @usableFromInline
    func tracingDecode<Value>(_ decode: () throws -> Value) rethrows -> Value {
        guard let trace else { return try decode() }
        let span = trace.begin(.decode)
        defer { trace.end(span) }
        return try decode()
    }

    private var trace: CallTrace? {
        switch self {
        case .direct(let hop): hop.trace
        case .intercepted(let attempt): attempt.trace
        }
    }

    /// The attempt's decided response on a promise of its own: for a retry, which the
    /// attempt before adopts.
    var response: Promise<HTTPResponse> { start().continueInline(decide) }
}
