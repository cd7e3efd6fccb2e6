import Foundation
@_spi(KringleInternals) import KringleCore
@_spi(KringleInternals) import KringlePromise

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``/KringleCore/Transport`` over URLSession, set up the way Kringle needs it: the default on Apple
/// platforms (see `NetworkClient.makeDefaultTransport()`), and available everywhere.
///
/// It has its own `URLSession` (never `.shared`) whose delegate refuses redirects, so every
/// hop reaches the client; URLSession's cookie handling is fully off (the client's
/// ``/KringleCore/CookieJar`` does it); there is no URL cache. A 401 that carries a `WWW-Authenticate`
/// challenge is returned as a response: authentication is the client's business.
/// ``/KringleCore/HTTPResponse/trailers`` stay empty: URLSession hands no trailer fields to its caller.
///
/// On Linux, FoundationNetworking folds repeated response headers into one comma-joined
/// value. The adapter splits a folded `Set-Cookie` back into its cookies, keeping
/// `Expires=Wed, 21 Oct 2015 …` dates whole. One case cannot be told apart: a single
/// header `Set-Cookie: a=b, c=d` arrives exactly like two headers `a=b` and `c=d`, and is
/// read as two cookies. Other repeated headers stay folded into one comma-joined value
/// (RFC 9110 §5.3 allows it), and header order across different names is not kept.
/// ``/KringleCore/CurlTransport`` keeps every header line as sent.
///
/// **A FoundationNetworking limit that ends the process.** On Linux (Swift 6.3), a chunked
/// response followed by trailer fields (RFC 9112 §7.1.2) stops the process with
/// `NativeProtocol.swift:240: Fatal error: Transfer completed, but there's no response.`
/// libcurl passes the trailer lines to FoundationNetworking's header callback after the
/// body; FoundationNetworking reads the first as the start of a new header block, drops the
/// response it had, and traps when the transfer ends without one. The trap happens inside
/// FoundationNetworking before any delegate callback, and no request header or session option
/// keeps a server from sending trailers, so this adapter cannot prevent it.
/// swift-corelibs-foundation#5286 (for issue #5285, on its Swift 6.4 branch) turns the trap
/// into a "network connection lost" error, which still loses the response. On Linux, use
/// ``/KringleCore/CurlTransport`` (what `NetworkClient()` does) for servers you do not control. The same
/// FoundationNetworking refuses a status line without a reason phrase (`HTTP/1.1 200`) and a
/// header value with a non-UTF-8 byte, and accepts `Http/1.1 200 OK`.
///
/// **Proxies.** On Linux FoundationNetworking sets no proxy option on libcurl (its
/// `EasyHandle` leaves proxies as a to-do), so libcurl reads the environment with its own
/// rules: `http_proxy` in lower case only (`HTTP_PROXY` never, CGI or not), `https_proxy` or
/// `HTTPS_PROXY`, `all_proxy` or `ALL_PROXY`, and `no_proxy` or `NO_PROXY` (host names and
/// suffixes, IP addresses and, from libcurl 7.86, CIDR ranges; entries with a port are
/// ignored). A session configuration's `connectionProxyDictionary` would be ignored there,
/// so on Linux a transport made with one refuses every request with
/// `KringleError.unsupportedConfiguration` rather than send it another way. On Apple
/// platforms URLSession follows the system's proxy settings, or the
/// `connectionProxyDictionary` you set. For one proxy URL, credentials, a no-proxy list with
/// ports, or the environment read the same way for every variable, use ``/KringleCore/CurlTransport``
/// (see ``/KringleCore/CurlTransport/Proxy``).
///
/// **TLS.** A certificate that does not verify is refused with `KringleError.tls` and a
/// ``/KringleCore/TLSFailure`` that says why. On Linux, FoundationNetworking trusts only the system's
/// authorities and offers no way to change that or to pin keys (see ``ServerTrust``): a
/// private CA, pinning or a client certificate on Linux needs ``/KringleCore/CurlTransport``. On Apple
/// platforms a ``ServerTrust`` sets private authorities and pins.
///
/// ```swift
/// let client = NetworkClient(transport: URLSessionTransport())
/// ```
public final class URLSessionTransport: Transport, ClientSending {
    let session: URLSession
    private let delegate: URLSessionTransportDelegate
    /// Where the delegate's callbacks run; internal so that tests can see how far it fell behind.
    let delegateQueue: PacedDelegateQueue
    #if canImport(FoundationNetworking)
    /// See `streamingTransport()`.
    private let streamingEngine = Locked<CurlTransport?>(nil)
    #endif

    /// The trust beyond the platform's defaults this transport was made with.
    public let serverTrust: ServerTrust?
    /// Why every request is refused, when the session configuration asks for a proxy this
    /// platform's URLSession would ignore.
    private let proxyRefusal: String?

    /// Creates a transport with its own session.
    ///
    /// - Parameters:
    ///   - configuration: A base configuration, ``defaultConfiguration`` when none is
    ///     given; cookie and cache settings are overridden as described above. On Linux, one
    ///     that allows more than 4 connections per host reopens connections under load (see
    ///     ``defaultConfiguration``).
    ///   - serverTrust: Private authorities and pinned keys, applied on Apple platforms; on
    ///     Linux every request is then rejected with ``/KringleCore/TLSFailure/unsupportedConfiguration``
    ///     (see ``ServerTrust``). `nil` by default: the platform's trust.
    public init(configuration: URLSessionConfiguration = defaultConfiguration, serverTrust: ServerTrust? = nil) {
        self.serverTrust = serverTrust
        proxyRefusal = Self.proxyRefusal(for: configuration)
        let configuration = configuration
        // On Linux anything less than all three still stores or sends cookies.
        configuration.httpShouldSetCookies = false
        configuration.httpCookieStorage = nil
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // One serial delegate queue: a concurrent one delivers data callbacks of one task at
        // once, and serialising cancellation with completion on it keeps `cancel()` away from
        // finished tasks. It also paces FoundationNetworking (see `PacedDelegateQueue`).
        let delegateQueue = PacedDelegateQueue()
        delegateQueue.name = "kringle.urlsession-delegate"
        self.delegateQueue = delegateQueue
        delegate = URLSessionTransportDelegate(queue: delegateQueue, serverTrust: serverTrust)
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    }

    deinit {
        // The session holds its delegate until it is invalidated.
        delegateQueue.withoutPacing { session.finishTasksAndInvalidate() }
    }

    /// Sends `request` once with a data task and reports the response, whatever its status.
    ///
    /// - Parameter request: Sent as it is; a redirect comes back as the 3xx response.
    /// - Returns: A promise of the response; cancel it to cancel the task.
    public func send(_ request: ValidatedRequest) -> Promise<HTTPResponse> {
        send(request, deadline: nil, connectTimeout: nil, limits: .default)
    }

    package var enforcesTimeLimits: Bool { false }

    /// ``send(_:)`` for the client, the response held within `limits`. The deadline is the
    /// client's to keep (URLSession on Linux rounds time limits to whole seconds), and the
    /// connect timeout is not kept at all (see ``ignoredSettings(of:)``).
    package func send(
        _ request: ValidatedRequest, deadline: Deadline?, connectTimeout: TimeInterval?, limits: ResponseLimits
    ) -> Promise<HTTPResponse> {
        if let refusal = unsupportedTrustRefusal(request.url) { return refusal }
        if let proxyRefusal { return Promise(error: KringleError.unsupportedConfiguration(proxyRefusal)) }
        // Unix domain sockets (issue 32): URLSessionTransport+UnixSocket.swift.
        if let refusal = Self.unixSocketRefusal(request.url) { return refusal }
        let task = delegateQueue.withoutPacing { session.dataTask(with: Self.sessionRequest(request)) }
        return start(task, delegate.register(task, limits: limits))
    }

    /// What of the client's configuration URLSession cannot honour: a connect timeout.
    ///
    /// URLSession bounds a request's silence (`timeoutInterval`) and its whole life
    /// (`timeoutIntervalForResource`), never connecting alone, and tells its delegate nothing
    /// when a connection is ready, so the client cannot time that itself either: counting
    /// from the request to its first progress would fail a slow answer from a reachable
    /// server, which is what a connect timeout must let through. Requests go out without
    /// it, bounded by the client's `timeout`. (On Linux a response body streamed to a
    /// reader goes through libcurl, which does honour it.)
    package func ignoredSettings(of configuration: NetworkClient.Configuration) -> [IgnoredSetting] {
        guard configuration.connectTimeout != nil else { return [] }
        return [
            IgnoredSetting(
                setting: "connectTimeout",
                reason: "URLSession has no limit on connecting alone; the timeout still bounds each request")
        ]
    }

    /// Streams the body from its file (a body of several pieces, such as a multipart form,
    /// is first spooled to a temporary file of mode 0600 in a directory of its own, mode
    /// 0700: `InputStream` uploads are unreliable in FoundationNetworking) and writes the
    /// response body to its file as it arrives, through
    /// ``/KringleCore/TransferRequest/responseBodyHandle`` when there is one.
    ///
    /// FoundationNetworking offers data tasks no backpressure of their own; the transport's
    /// delegate queue makes it wait while the body's chunks are not yet on disk, so the body
    /// never piles up in memory. Limit: FoundationNetworking makes a timer for every 16 KB
    /// chunk and frees them lazily, so one download of several GiB still grows by tens of MB
    /// until it ends; `CurlTransport` stays flat.
    ///
    /// A response body for a reader (``/KringleCore/TransferRequest/responseBodyChannel``) goes through a
    /// `CurlTransport` of this transport's own on Linux, since FoundationNetworking can hold
    /// it back only by stopping every transfer of the process; on Apple platforms through a
    /// `URLSession` of its own whose delegate queue waits for the reader. That Linux
    /// `CurlTransport` has its default configuration: the session configuration's
    /// `httpAdditionalHeaders`, `connectionProxyDictionary` and cookie and cache settings do
    /// not apply to streamed responses (libcurl still follows the proxy environment
    /// variables). Put fields a stream needs on the endpoint or the client's default headers.
    public func transfer(_ transfer: TransferRequest) -> Promise<HTTPResponse> {
        if let refusal = unsupportedTrustRefusal(transfer.request.url) { return refusal }
        if let proxyRefusal { return Promise(error: KringleError.unsupportedConfiguration(proxyRefusal)) }
        // Unix domain sockets (issue 32): refused before a stream could reach CurlTransport.
        if let refusal = Self.unixSocketRefusal(transfer.request.url) { return refusal }
        if let channel = transfer.responseBodyChannel {
            #if canImport(FoundationNetworking)
            _ = channel
            return streamingTransport().transfer(transfer)
            #else
            guard transfer.body == nil else {
                return Promise(
                    error: KringleError.invalidRequest(
                        "URLSessionTransport streams no response for a streamed request body"))
            }
            return stream(transfer, into: channel)
            #endif
        }
        let request = Self.sessionRequest(transfer.request)
        var spool: URL?
        let sink: FileHandle?
        let task: URLSessionTask
        do {
            if let handle = transfer.responseBodyHandle {
                sink = try Self.emptied(handle, file: transfer.responseBodyFile)
            } else {
                sink = try transfer.responseBodyFile.map(Self.truncatedForWriting)
            }
            if let body = transfer.body {
                let (file, isSpool) = try Self.file(holding: body)
                spool = isSpool ? Self.spoolDirectory(of: file) : nil
                task = delegateQueue.withoutPacing { session.uploadTask(with: request, fromFile: file) }
            } else {
                task = delegateQueue.withoutPacing { session.dataTask(with: request) }
            }
        } catch {
            if let spool { try? FileManager.default.removeItem(at: spool) }
            return Promise(error: error)
        }
        return start(
            task,
            delegate.register(
                task, sink: sink, spool: spool, limits: transfer.limits, progress: transfer.progress))
    }

    #if canImport(FoundationNetworking)
    /// The libcurl transport this transport's streamed responses go through on Linux.
    ///
    /// FoundationNetworking can hold a transfer back only by blocking its delegate queue,
    /// and its sessions share the queue that drives every transfer: one slow reader would
    /// stop every request of the process. libcurl, which FoundationNetworking itself runs
    /// on, pauses a single transfer. Made on the first stream, kept for the next ones.
    private func streamingTransport() -> CurlTransport {
        streamingEngine.withLock { engine in
            if let engine { return engine }
            // libcurl reads the proxy environment itself, as it does under FoundationNetworking.
            let made = CurlTransport(configuration: .init(proxy: .libcurlEnvironment))
            engine = made
            return made
        }
    }
    #else
    /// A body for a reader, on a session of its own: its delegate queue blocks while the
    /// reader is behind, which must not hold up this transport's other tasks. URLSession's own limit on silence is lifted: the
    /// reader may pause as long as it likes, and the client times the head itself.
    private func stream(_ transfer: TransferRequest, into channel: ResponseBodyChannel) -> Promise<HTTPResponse> {
        let queue = PacedDelegateQueue()
        queue.name = "kringle.urlsession-stream"
        let streamDelegate = URLSessionTransportDelegate(queue: queue, serverTrust: serverTrust)
        let streamSession = URLSession(
            configuration: session.configuration, delegate: streamDelegate, delegateQueue: queue)
        var request = Self.sessionRequest(transfer.request)
        // As good as no limit on a stream's silence.
        request.timeoutInterval = URLRequest.noLimit
        let task = queue.withoutPacing { streamSession.dataTask(with: request) }
        let promise = streamDelegate.register(
            task, limits: transfer.limits, channel: channel, progress: transfer.progress)
        promise.onCancel { streamDelegate.cancel(task) }
        channel.onCancel { streamDelegate.cancel(task) }
        queue.withoutPacing {
            task.resume()
            // The session goes once its one task is over.
            streamSession.finishTasksAndInvalidate()
        }
        return promise
    }

    #endif

    /// On a platform that cannot apply ``serverTrust``, the rejection of every request:
    /// sending it with the platform's trust instead would drop pins or trust the wrong CAs
    /// silently.
    private func unsupportedTrustRefusal(_ url: URL?) -> Promise<HTTPResponse>? {
        guard serverTrust != nil, !ServerTrust.isSupported else { return nil }
        return Promise(
            error: KringleError.tls(
                url ?? URL(fileURLWithPath: "/"), .unsupportedConfiguration, underlying: ServerTrustUnavailable()))
    }

    private func start(_ task: URLSessionTask, _ promise: Promise<HTTPResponse>) -> Promise<HTTPResponse> {
        let delegate = delegate
        promise.onCancel { delegate.cancel(task) }
        delegateQueue.withoutPacing { task.resume() }
        return promise
    }

    /// The `URLRequest` this transport's session sends for `request`.
    ///
    /// URLSession on Linux rounds timeouts below a second down (0.5 s fails at once) and
    /// ignores the resource timeout; the client keeps a precise timeout of its own, so
    /// URLSession gets a looser one that never fires first. The session has no cache (the
    /// client's ``/KringleCore/HTTPCache`` is the one), so the request's cache policy is not
    /// passed on: `.returnCacheDataDontLoad` would fail every request here, where
    /// ``/KringleCore/CurlTransport`` sends it.
    static func sessionRequest(_ request: ValidatedRequest) -> URLRequest {
        var sent = URLRequest(request.request)
        sent.timeoutInterval = sent.timeoutInterval.rounded(.up) + 1
        sent.cachePolicy = .useProtocolCachePolicy
        return sent
    }

    /// Opens an existing file for writing from its start, emptied. The file is not created:
    /// if the caller removed it (after a cancellation), nothing is written.
    private static func truncatedForWriting(_ url: URL) throws -> FileHandle {
        do {
            return try emptied(FileHandle(forWritingTo: url), file: url)
        } catch {
            throw KringleError.file(url, underlying: error)
        }
    }

    /// `handle` emptied, for writing from its start (``/KringleCore/TransferRequest/responseBodyHandle``).
    private static func emptied(_ handle: FileHandle, file: URL?) throws -> FileHandle {
        do {
            try handle.truncate(atOffset: 0)
            return handle
        } catch {
            throw KringleError.file(file ?? URL(fileURLWithPath: "/"), underlying: error)
        }
    }

    /// A file with the body's bytes: its own file when it is one (and is sent as it is), else
    /// a spooled copy, compressed when the body is (whose directory is to be removed with it).
    private static func file(holding body: StreamedBody) throws -> (url: URL, isSpool: Bool) {
        if body.compression == nil, body.segments.count == 1, case .file(let url, let size) = body.segments[0] {
            // URLSession reads the file itself, so its size is checked here, once.
            let current = try StreamedBody.size(ofReadableFile: url)
            guard current == size else {
                throw KringleError.file(url, underlying: KringleError.FileSizeChanged(expected: size, found: current))
            }
            return (url, false)
        }
        return (try spool(body, in: FileManager.default.temporaryDirectory), true)
    }
}
