import Foundation
@_spi(KringleInternals) import KringlePromise

// The one path every request takes, top to bottom, each stage in the file named:
//
// 1. build      the endpoint, method and body become a `ValidatedRequest`: every field
//               checked as it is set (RequestAssembly, URLAssembly, ValidatedRequest); a
//               JSON body is encoded on the coding queue.
// 2. adapt      each interceptor's `adapt`, in order; what it returns is checked again
//               (Attempt).
// 3. hop        the jar's cookies added, the answer from the cache where RFC 9111 allows it
//               (NetworkClient+Cache, only for a client with a cache) or else the
//               transport's exchange, logged (NetworkClient+Exchange); the response's
//               cookies stored (Hop).
// 4. redirect?  a 3xx with a `Location` starts the next hop, in the same loop (Hop, which
//               also checks the redirect limit and HTTPS to HTTP; Redirect says what
//               changes).
// 5. validate   a status outside `acceptableStatusCodes` becomes an error (Hop).
// 6. retry?     a failure goes to the interceptors' `retry`; a retry starts again at 2
//               (Attempt).
// 7. decode     the final response becomes the caller's value, on the coding queue
//               (ResponseDecoding).
//
// The bookkeeping between stages (cookies, redirect decisions, validation) runs on the
// thread that delivered the response: it is quick, and saves a queue hop per request.
//
// One shape for every client: a client without interceptors has nothing to adapt or retry,
// and its `Attempt` skips those two stages, on the same path.

extension NetworkClient {
    /// Builds the request (1), then runs the rest of the pipeline.
    ///
    /// Inlinable, as is ``runPipeline(for:options:output:)``, so that a call such as
    /// `get(_:as:)`, inlinable too, has the promises of its value compiled for the value's
    /// type in the caller's module: generic code there would look up the type metadata of
    /// the promise's internals at run time, several times per request. The part that
    /// depends on the endpoint's type is a function of its own, so that a caller that is
    /// generic over the endpoint (or holds an `any Endpoint`) still gets that.
    ///
    /// - Parameters:
    ///   - cachePolicy: The call's own policy, over the endpoint's.
    ///   - timeout: The call's own timeout, over the endpoint's.
    @inlinable @inline(__always)
    func runPipeline<Output: Sendable>(
        _ method: HTTPMethod,
        _ endpoint: some Endpoint,
        body: RequestBody?,
        cachePolicy: CachePolicy? = nil,
        timeout: TimeInterval? = nil,
        output: @escaping @Sendable (HTTPResponse) throws -> Output
    ) -> Promise<Output> {
        switch assemble(method, endpoint, body: body, timeout: timeout) {
        case .built(let built):
            return runPipeline(for: built.request, options: built.options(cachePolicy: cachePolicy), output: output)
        case .failed(let error):
            return Promise(error: error)
        case .encoding(let building):
            return building.flatMapResultInline { result in
                let built = try result.get()
                return self.runPipeline(
                    for: built.request, options: built.options(cachePolicy: cachePolicy), output: output)
            }
        }
    }

    /// The request for `method` on `endpoint`, or the promise of it when a JSON body must be
    /// encoded first (on the coding queue).
    @usableFromInline
    func assemble(_ method: HTTPMethod, _ endpoint: some Endpoint, body: RequestBody?, timeout: TimeInterval?)
        -> Assembly
    {
        // A body holds an existential, so matching `.json?` copies it, through its metadata:
        // a call without a body (every GET) is told apart first by a comparison that does not.
        guard body != nil, case .json? = body else {
            // Nothing to encode: building the URL and headers costs less than a queue hop.
            do {
                return .built(try RequestAssembly.build(method, endpoint, body: body, callTimeout: timeout, for: self))
            } catch {
                return .failed(error)
            }
        }
        return .encoding(
            Promise(()).map(on: Self.codingQueue) { _ in
                try RequestAssembly.build(method, endpoint, body: body, callTimeout: timeout, for: self)
            })
    }

    /// What ``assemble(_:_:body:timeout:)`` gives: the request, why there is none, or its promise.
    @usableFromInline
    enum Assembly: Sendable {
        case built(RequestAssembly.Built)
        case failed(any Error)
        case encoding(Promise<RequestAssembly.Built>)
    }

    /// Runs a built request through stages 2 to 7, and logs a failure, cancellation
    /// included.
    ///
    /// Only stage 7 knows the output type: the stages before it work on ``HTTPResponse``,
    /// so that they are compiled for it once rather than run as generic code, which looks
    /// up type metadata at run time on every request.
    @inlinable
    func runPipeline<Output: Sendable>(
        for request: ValidatedRequest,
        options: TransferOptions = .none,
        output: @escaping @Sendable (HTTPResponse) throws -> Output
    ) -> Promise<Output> {
        // 7. decode. A failure passes on at once, so that a time-out or a cancellation is
        // never held up behind busy decoders.
        let attempt = Attempt(client: self, request: request, options: started(options))
        let decoded = attempt.bounded(
            attempt.start().mapSuccess(
                DecodeStep(attempt: attempt, writesBodyToFile: options.writesBodyToFile, output: output),
                on: Self.codingQueue))
        guard isLogging else { return decoded }
        return loggingFailure(of: decoded, for: request.request)
    }

    /// Encodes bodies and decodes responses, off the caller's thread and the transport's
    /// (but see `consumerDecodeLimit`).
    ///
    /// The promises' own queue, where the caller's handlers run by default: the decode runs
    /// there as a job of its own (`Promise.mapSuccess`), after which a handler it sets off on
    /// that queue runs on the same thread, so the value reaches the caller's handler without
    /// a second thread hop. A thread blocked in `wait()` never takes on the decode of another
    /// request.
    @usableFromInline
    static var codingQueue: DispatchQueue { .promises }

    /// The largest body that a caller blocked in `wait()` (without a time-out) or awaiting
    /// `value` decodes itself rather than on the coding queue (a download never does): one
    /// thread wake-up less per request, and a decode this small (well under a millisecond)
    /// never holds up the caller's cancellation noticeably.
    @usableFromInline
    static let consumerDecodeLimit = 64 * 1024

    /// Stage 7 as one step of `mapSuccess`: the attempt's decision on its first hop's
    /// answer, then the decode on the coding queue.
    ///
    /// A type rather than closures: `mapSuccess` compiled for it calls its methods
    /// directly, where each closure would be wrapped in a thunk, allocated per request.
    @usableFromInline
    struct DecodeStep<Output: Sendable>: SuccessStep {
        @usableFromInline let attempt: Attempt
        /// A download's last step moves (or appends) a file, which may take long: never
        /// run by a consumer.
        @usableFromInline let writesBodyToFile: Bool
        @usableFromInline let output: @Sendable (HTTPResponse) throws -> Output

        @inlinable
        init(attempt: Attempt, writesBodyToFile: Bool, output: @escaping @Sendable (HTTPResponse) throws -> Output) {
            self.attempt = attempt
            self.writesBodyToFile = writesBodyToFile
            self.output = output
        }

        @inlinable
        func decide(_ result: Result<HTTPResponse, any Error>) throws -> Outcome<HTTPResponse> {
            try attempt.decide(result)
        }

        /// A small decode may run on the consumer waiting for it.
        @inlinable
        func consumerMayRun(_ response: HTTPResponse) -> Bool {
            !writesBodyToFile && response.body.count <= NetworkClient.consumerDecodeLimit
        }

        @inlinable
        func run(_ response: HTTPResponse) throws -> Output {
            guard attempt.isTraced else { return try output(response) }
            return try attempt.tracingDecode { try output(response) }
        }
    }

    /// Seconds a call with `options` may take: its own timeout, else its endpoint's, else
    /// the client's.
    func timeout(of options: TransferOptions) -> TimeInterval {
        options.timeout ?? configuration.timeout
    }

    /// `options` for a call starting now: with its deadline, its timeout running from here
    /// across its every attempt, hop, wait for a connection and wait between attempts.
    @usableFromInline
    func started(_ options: TransferOptions) -> TransferOptions {
        guard !options.isStreaming, let deadline = Deadline(after: timeout(of: options), on: configuration.clock)
        else { return options }
        var started = options
        started.deadline = deadline
        return started
    }

    /// The trace of a call starting now, when the client's instrument traces it. Kept out of
    /// ``TransferOptions``, which every request copies several times: the attempts and hops
    /// of a traced call hold it.
    func startTrace() -> CallTrace? {
        guard isInstrumented, let instrument = configuration.instrument, let context = instrument.traceContext()
        else { return nil }
        return CallTrace(
            context: context, instrument: instrument, clock: configuration.clock, redaction: configuration.redaction)
    }
}
