import Foundation

/// A ``Transport`` that sends requests with libcurl, loaded at run time: the default on Linux
/// (see `NetworkClient.makeDefaultTransport()`).
///
/// ```swift
/// let client = NetworkClient(transport: CurlTransport())
/// ```
///
/// Each transport has one curl multi handle, driven by one thread of its own, and its own
/// pool of keep-alive connections. Any thread may call ``send(_:)`` or cancel the promise it
/// returns. The transport follows the ``Transport`` contract: it follows no redirect, keeps
/// no cookies, keeps repeated response headers apart, decodes gzip, deflate and br bodies
/// (leaving `Content-Length` and `Content-Encoding` as the server sent them, so
/// `Content-Length` then counts the encoded bytes), and stops a transfer when its promise is
/// cancelled. Trailer fields after a chunked body arrive in ``HTTPResponse/trailers``, apart
/// from the headers.
///
/// libcurl is opened with `dlopen` the first time a transport is created, so nothing is
/// needed at build time. When no libcurl can be loaded, ``isAvailable`` is `false` and
/// every ``send(_:)`` rejects with `KringleError.transport(CurlError)` saying which
/// libraries were tried.
///
/// ``transfer(_:)`` streams: request bodies are read in chunks, response bodies go straight
/// to their file, and progress is reported as bytes move.
///
/// Besides `http` and `https` URLs it sends `http+unix` and `https+unix` ones to a server on
/// a Unix domain socket (``UnixSocketURL``), with `CURLOPT_UNIX_SOCKET_PATH`.
///
/// Errors: `KringleError.timedOut` when the request's timeout passes,
/// `KringleError.malformedResponse` when the answer is not HTTP (a status line that is not
/// `HTTP/1.0`, `1.1`, `2` or `3` in upper case, then a three-digit code, as RFC 9112 §2.3 and
/// §4 require, though curl itself accepts `Http/1.1`; or anything curl refuses as a "weird
/// server reply"), `KringleError.tls` with a ``TLSFailure`` and the ``CurlError`` when TLS
/// failed (the certificate did not verify, a pin did not match, the server wanted a client
/// certificate…), `KringleError.transport(CurlError)` for any other failure (``CurlError``
/// is a `TransportFailure`, so `RetryPolicy` can resend requests that never reached a
/// server), `KringleError.invalidRequest` for a request that cannot be sent (a scheme
/// other than http, https, http+unix or https+unix, a header name that is not a token), and
/// `PromiseError.cancelled` when the promise is cancelled. A status line without a reason
/// phrase is valid and accepted.
public final class CurlTransport: Transport, ClientSending {
    /// Whether libcurl could be loaded into this process.
    ///
    /// The first call loads it (once per process); later calls return the same answer.
    public static var isAvailable: Bool {
        if case .success = CurlLibrary.load() { return true }
        return false
    }

    /// The loaded library's version text, such as `"libcurl/7.88.1 OpenSSL/3.0.15 zlib/1.2.13"`,
    /// or `nil` when libcurl could not be loaded.
    public static var libraryVersion: String? {
        CurlLibrary.version
    }

    /// The settings this transport was created with.
    public let configuration: Configuration

    /// The engine, or why there is none.
    let engine: Result<CurlEngine, CurlError>

    /// Creates a transport with the default ``Configuration``.
    public convenience init() {
        self.init(configuration: Configuration())
    }

    /// Creates a transport.
    ///
    /// - Parameter configuration: connection limits, proxy, TLS and HTTP version.
    public convenience init(configuration: Configuration) {
        self.init(configuration: configuration, library: CurlLibrary.load())
    }

    /// Creates a transport as if loading libcurl had given `library`; tests use it to see
    /// the unavailable path and the poll() waiting of other platforms (`portableWaiting`).
    init(configuration: Configuration, library: Result<Void, CurlError>, portableWaiting: Bool = false) {
        self.configuration = configuration
        engine = library.flatMap { () -> Result<CurlEngine, CurlError> in
            Result { () throws(CurlError) -> CurlEngine in
                try CurlEngine(configuration: configuration, portableWaiting: portableWaiting)
            }
        }
    }

    deinit {
        if case .success(let engine) = engine {
            engine.shutdown()
        }
    }

    /// Whether this transport waits for its sockets with poll() rather than epoll.
    var waitsWithPoll: Bool {
        if case .success(let engine) = engine { return engine.waitsWithPoll }
        return false
    }

    /// Whether a thread blocked in `wait()` waits for this transport's sockets now, and how
    /// many transfers such threads have seen finish (``CurlEngine/assist(until:wakeUp:)``).
    var waitAssistance: (isAssisted: Bool, transfers: Int) {
        if case .success(let engine) = engine { return engine.assistance }
        return (false, 0)
    }

    /// Sends `request` once and reports the response, whatever its status.
    ///
    /// - Parameter request: sent as it is, checked already: method, URL, headers and
    ///   body. Its ``HTTPRequest/timeout`` (60 seconds unless set; zero or less for no
    ///   limit) limits the whole request, with millisecond precision, from this call on: a
    ///   wait for a connection (see ``Configuration/maximumConnections``) counts.
    /// - Returns: a promise of the response. Cancel it to stop the transfer.
    public func send(_ request: ValidatedRequest) -> Promise<HTTPResponse> {
        let deadline = Deadline(after: request.request.timeout, on: SystemClock())
        return send(request, deadline: deadline, connectTimeout: nil, limits: .default)
    }

    package var enforcesTimeLimits: Bool { true }

    /// ``send(_:)`` for the client: over at `deadline` when given (the client then sets no
    /// timer of its own), connecting within `connectTimeout`, the response held within
    /// `limits`.
    package func send(
        _ request: ValidatedRequest, deadline: Deadline?, connectTimeout: TimeInterval?, limits: ResponseLimits
    ) -> Promise<HTTPResponse> {
        submit { engine, promise in
            var plan = try CurlRequestPlan(request.request, timeLimit: .deadline(deadline))
            plan.connectTimeoutMilliseconds = connectTimeout.map(CurlRequestPlan.milliseconds) ?? 0
            engine.submit(plan, limits: limits, promise: promise)
        }
    }

    /// None: libcurl honours every setting of the client's.
    package func ignoredSettings(of configuration: NetworkClient.Configuration) -> [IgnoredSetting] {
        []
    }

    /// Sends a request with a streamed body, a response body bound for a file, or both,
    /// under the same contract as ``send(_:)``, without holding either body in memory.
    ///
    /// The body is read in chunks as curl sends it, and read again from the start if curl
    /// has to resend the request. The response body is written to the file as it arrives;
    /// the write is synchronous, so a disk slower than the network slows the transfer down
    /// rather than filling memory (no copy waits anywhere, so `curl_easy_pause` is never
    /// needed; the `curl` command line writes the same way). The transport's transfers share
    /// its one thread, so a stalled disk holds back the others too. The response's `body` is
    /// then empty.
    ///
    /// The request's ``HTTPRequest/timeout`` bounds the longest silence here, not the whole
    /// transfer (a large download may rightly take minutes): the connection must be made
    /// within it, and the transfer stops once less than a byte a second moved for that long
    /// (in whole seconds). `progress` is called on the transport's thread whenever the byte
    /// counts change.
    ///
    /// - Parameter transfer: the request, its streamed body, the response body's file (which
    ///   must exist; it is emptied first, and written through
    ///   ``TransferRequest/responseBodyHandle`` when there is one, never reopened by path) and
    ///   the progress callback.
    /// - Returns: a promise of the response. Cancel it to stop the transfer.
    public func transfer(_ transfer: TransferRequest) -> Promise<HTTPResponse> {
        submit { engine, promise in
            let silence = CurlRequestPlan.milliseconds(transfer.request.request.timeout)
            var plan = try CurlRequestPlan(
                transfer.request.request, timeLimit: .silence(milliseconds: silence), streamedBody: transfer.body)
            plan.connectTimeoutMilliseconds = transfer.connectTimeout.map(CurlRequestPlan.milliseconds) ?? 0
            engine.submit(
                plan, responseBodyFile: transfer.responseBodyFile, responseBodyHandle: transfer.responseBodyHandle,
                progress: transfer.progress, limits: transfer.limits, channel: transfer.responseBodyChannel,
                promise: promise)
        }
    }

    /// The promise that `start` hands to the engine, or a rejection when libcurl is missing
    /// or the request cannot be planned.
    func submit(_ start: (CurlEngine, Promise<HTTPResponse>) throws -> Void) -> Promise<HTTPResponse> {
        switch engine {
        case .failure(let error):
            return Promise(error: KringleError.transport(error))
        case .success(let engine):
            let promise = Promise<HTTPResponse>.pending()
            do {
                try start(engine, promise)
            } catch {
                return Promise(error: error)
            }
            return promise
        }
    }
}
