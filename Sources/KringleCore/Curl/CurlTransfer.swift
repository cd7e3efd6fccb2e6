import CCurlShim
import Foundation

/// One transfer in progress on the driving thread: the easy handle lent to it, the memory
/// curl reads from (body, header list), and the objects its callbacks work for.
///
/// Confined to the driving thread. It must outlive its time in the multi handle: the driver
/// removes the easy handle from the multi handle and resets it before letting go of the
/// transfer, whose `deinit` then frees what curl pointed at.
final class CurlTransfer {
    let submission: CurlSubmission
    let easy: EasyHandle
    /// What was left of the plan's deadline as the transfer started, in milliseconds
    /// (`CURLOPT_TIMEOUT_MS`); 0 for no limit, and for a transfer limited by silence.
    private let millisecondsLeft: Int
    let collector = ResponseCollector()
    /// `CURLOPT_POSTFIELDS` does not copy, so an in-memory body lives here for the whole
    /// transfer.
    private let bodyBuffer: UnsafeMutableRawBufferPointer?
    /// A streamed body, read by the read callback.
    private let upload: UploadSource?
    /// Byte counts for the transfer's progress callback.
    private let progress: ProgressRelay?
    /// `CURLOPT_HTTPHEADER` does not copy the list either.
    private var headerList: OpaquePointer?
    /// Nor does `CURLOPT_RESOLVE` (CurlTransfer+Pool.swift).
    var resolveList: OpaquePointer?
    /// The proxy the transport's routes chose for the request (CurlTransfer+Proxy.swift), for
    /// a refusal to name; `nil` when it goes direct or libcurl reads the environment itself.
    var proxy: ProxyServer?
    /// Whether HTTP/2 is spoken from the first byte (h2c with prior knowledge).
    var asksHTTP2PriorKnowledge = false
    /// For a WebSocket: the cache of its one connection (CurlTransfer+WebSocket.swift).
    var connectionShare: CurlConnectionShare?

    init(_ submission: CurlSubmission, easy: EasyHandle, millisecondsLeft: Int) {
        self.submission = submission
        self.easy = easy
        self.millisecondsLeft = millisecondsLeft
        switch submission.plan.body {
        case .data(let body):
            // At least one byte, so that an empty body still has a non-NULL pointer: curl
            // would read a NULL POSTFIELDS from a read callback (stdin by default).
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, body.count), alignment: 1)
            buffer.copyBytes(from: body)
            bodyBuffer = buffer
            upload = nil
        case .stream(let body):
            bodyBuffer = nil
            upload = UploadSource(body)
        case nil:
            bodyBuffer = nil
            upload = nil
        }
        progress = submission.progress.map(ProgressRelay.init)
    }

    deinit {
        if let headerList { kcurl_slist_free_all(headerList) }
        if let resolveList { kcurl_slist_free_all(resolveList) }
        bodyBuffer?.deallocate()
    }

    /// Sets every option this transfer needs on its easy handle (freshly reset, or holding
    /// the options of a plain transfer of its own shape: ``plainShape``), and opens the
    /// response body's file if it has one.
    ///
    /// - Throws: ``CurlError`` when curl refuses an option; `KringleError.transport` when
    ///   the file cannot be opened.
    func configure(_ configuration: CurlTransport.Configuration, proxyRoutes: ProxyRoutes) throws {
        ThreadConfinement.assertOnDrivingThread()
        if let handle = submission.responseBodyHandle {
            collector.sink = try ResponseFileSink(handle: handle)
        } else if let file = submission.responseBodyFile {
            collector.sink = try ResponseFileSink(url: file)
        }
        collector.limits = submission.limits
        collector.easy = easy
        if let channel = submission.channel {
            collector.channel = channel
            collector.onFinalHead = { [unowned self] in
                if let refusal = proxyRefusal {
                    submission.promise.reject(refusal)
                } else {
                    submission.promise.fulfill(head)
                }
            }
        }
        collector.expectsNoBody = submission.plan.method == .head
        let plan = submission.plan
        if easy.keptShape == nil {
            try configureSameForEveryTransfer()
        } else {
            easy.clearErrorBuffer()
        }
        try easy.set(KCURLOPT_URL, plan.url)
        try configureTimeout(plan)
        try configureMethodAndBody(plan)
        try configureHeaders(plan.headerLines)
        let userdata = UnsafeRawPointer(Unmanaged.passUnretained(collector).toOpaque())
        try easy.set(KCURLOPT_WRITEDATA, pointer: userdata)
        try easy.set(KCURLOPT_HEADERDATA, pointer: userdata)
        if let progress {
            progress.statusCode = { [easy] in easy.responseCode }
            try easy.set(KCURLOPT_NOPROGRESS, false)
            try easy.set(KCURLOPT_XFERINFOFUNCTION, progress: Callbacks.progress)
            try easy.set(
                KCURLOPT_XFERINFODATA, pointer: UnsafeRawPointer(Unmanaged.passUnretained(progress).toOpaque()))
        }
        try configureProxy(proxyRoutes, configuration)
        try configureConnection(configuration)
        try configurePoolAndAddresses(configuration)
        // Unix domain sockets (issue 32): after the proxy, which it switches off.
        if let socketPath = plan.unixSocketPath { try configureUnixSocket(socketPath) }
        // The server's TLS options (CurlTransfer+TLS.swift) would do nothing for plain http.
        if plan.isHTTPS {
            try configureTLS(configuration)
        }
        if plan.connectsOnly { try configureConnectOnly() }
    }

    /// The options every transfer sets alike, whatever its request and the transport's
    /// configuration: set on a handle fresh from a reset, kept by one given back without.
    private func configureSameForEveryTransfer() throws(CurlError) {
        try easy.attachErrorBuffer()
        // Signals are process-wide and this is one thread among many: curl must not use
        // SIGALRM for DNS timeouts.
        try easy.set(KCURLOPT_NOSIGNAL, true)
        try restrictToHTTP()
        // The client follows redirects itself, so that it sees every hop.
        try easy.set(KCURLOPT_FOLLOWLOCATION, false)
        // "" asks for every coding this libcurl can decode (gzip, deflate, br…) and decodes
        // the body; Content-Length still describes the encoded bytes. The field itself is
        // among the request's header lines (CurlRequestPlan.acceptEncodingLine).
        try easy.set(KCURLOPT_ACCEPT_ENCODING, "")
        try easy.set(KCURLOPT_TCP_NODELAY, true)
        try easy.set(KCURLOPT_TCP_KEEPALIVE, true)
        try easy.set(KCURLOPT_WRITEFUNCTION, callback: Callbacks.body)
        try easy.set(KCURLOPT_HEADERFUNCTION, callback: Callbacks.header)
    }

    /// What a transfer whose handle may be given back without a reset has in common with
    /// the next transfer that may take it so (see ``plainShape``).
    struct PlainShape: Equatable {
        /// Only https transfers set the TLS options and `CURLOPT_PIPEWAIT`.
        var isHTTPS: Bool
    }

    /// This transfer's shape when it is plain: a GET with no body, limited by a deadline
    /// alone, with no progress, no streamed body, no Unix socket and no WebSocket. Every
    /// option such a transfer sets is either the same for every transfer
    /// (``configureSameForEveryTransfer()``) or set by every plain transfer of its shape
    /// (the URL, the deadline, the method, the header list, the callbacks' data, the
    /// direct route, the transport's connection, pool and TLS options), so the next one
    /// overwrites each: its handle needs no `curl_easy_reset`, which with the options set
    /// anew cost about 5,000 instructions a request. A transfer through a proxy sets
    /// options others do not, and is not reused so (``CurlDriver`` checks ``proxy``).
    var plainShape: PlainShape? {
        let plan = submission.plan
        guard case .deadline = plan.timeLimit, plan.method == .get, plan.body == nil,
            plan.connectTimeoutMilliseconds == 0, progress == nil, submission.channel == nil,
            plan.unixSocketPath == nil, !plan.connectsOnly
        else { return nil }
        return PlainShape(isHTTPS: plan.isHTTPS)
    }

    /// What the promise settles with once curl reports `code` for this transfer.
    ///
    /// A response body's file is closed first, so that it is complete when the promise
    /// settles.
    func outcome(code: Int32) -> Result<HTTPResponse, any Error> {
        ThreadConfinement.assertOnDrivingThread()
        collector.sink?.close()
        // A callback's own failure explains more than curl's "aborted by callback".
        if let failure = upload?.failure {
            return .failure(failure)
        }
        if let failure = collector.sink?.failure {
            return .failure(KringleError.transport(failure))
        }
        if let crossed = collector.crossedLimit {
            return .failure(KringleError.responseTooLarge(submission.plan.requestURL, limit: crossed))
        }
        if let malformation = collector.malformation {
            return .failure(KringleError.malformedResponse(submission.plan.requestURL, reason: malformation))
        }
        switch Int(code) {
        case KCURLE_OK:
            if let refusal = proxyRefusal {
                return .failure(refusal)
            }
            if let progress {
                progress.update(
                    sent: easy.uploadedBytes, received: easy.downloadedBytes,
                    expectedToReceive: easy.expectedDownloadBytes)
            }
            return .success(
                HTTPResponse(
                    statusCode: easy.responseCode,
                    headers: collector.headers,
                    trailers: collector.trailers,
                    body: collector.takeBody(),
                    url: effectiveURL,
                    metrics: easy.metrics(decodedBodyBytes: collector.decodedBytes)
                ))
        case KCURLE_OPERATION_TIMEDOUT:
            return .failure(KringleError.timedOut(timeoutPhase))
        case KCURLE_WEIRD_SERVER_REPLY:
            // curl's verdict on what came back: a header line without a colon, a NUL, an
            // invalid Content-Length…
            return .failure(KringleError.malformedResponse(submission.plan.requestURL, reason: curlMessage(code)))
        case KCURLE_UNSUPPORTED_PROTOCOL where easy.requestHeadBytes > 0:
            // Once a request has gone out this is about the answer: a version curl does not
            // know (HTTP/1.2), a four-digit status code, HTTP/0.9. Before, it is about this
            // libcurl (built without TLS, say), not the server.
            return .failure(KringleError.malformedResponse(submission.plan.requestURL, reason: curlMessage(code)))
        default:
            // CurlTransfer+Failures.swift
            return .failure(failure(for: CurlError(code: Int(code), message: curlMessage(code))))
        }
    }

    /// Which of the limits ``configureTimeout(_:)`` set curl ran out of: connecting, when it
    /// had no connection yet and the connect limit was the shorter; silence, for a transfer
    /// (low speed); otherwise the whole exchange.
    private var timeoutPhase: TimeoutPhase {
        let plan = submission.plan
        guard case .deadline = plan.timeLimit else {
            // A limit on silence, which before the connection is a limit on connecting.
            return easy.connectionWasReady ? .idle : .connect
        }
        guard !easy.connectionWasReady else { return .total }
        let connect = plan.connectTimeoutMilliseconds
        return connect > 0 && (millisecondsLeft == 0 || connect < millisecondsLeft) ? .connect : .total
    }

    /// The final response so far, for a streamed body's reader: status, fields, URL and the
    /// metrics up to the first byte; the body follows through the channel.
    var head: HTTPResponse {
        HTTPResponse(
            statusCode: easy.responseCode, headers: collector.headers, url: effectiveURL,
            metrics: easy.metrics(decodedBodyBytes: 0))
    }

    /// curl's explanation of `code`: the error buffer when curl filled it (it names the host,
    /// port and reason), otherwise `curl_easy_strerror`'s text.
    private func curlMessage(_ code: Int32) -> String {
        let buffered = easy.errorMessage
        return buffered.isEmpty ? String(cString: kcurl_easy_strerror(code)) : buffered
    }

    /// The URL that answered: the request's own unless curl reports a different one
    /// (parsing a URL costs more than comparing two strings, so it is done only then).
    private var effectiveURL: URL {
        let plan = submission.plan
        guard let reported = easy.effectiveURL(ifOtherThan: plan.url) else { return plan.requestURL }
        return URL(string: reported) ?? plan.requestURL
    }

    /// Refuses every scheme but http and https, also for anything curl might be pointed at
    /// later in the transfer.
    private func restrictToHTTP() throws(CurlError) {
        do {
            try easy.set(KCURLOPT_PROTOCOLS_STR, "http,https")
        } catch {
            // Before curl 7.85 only the bitmask form exists.
            try easy.set(KCURLOPT_PROTOCOLS, Int(KCURLPROTO_HTTP | KCURLPROTO_HTTPS))
        }
    }

    /// A whole-exchange limit for plain requests; for streamed transfers a limit on silence,
    /// as the client's idle watchdog expects: the connection must be made within the time,
    /// and the transfer is stopped once it moves less than a byte a second for that long.
    /// A connect timeout, when the plan has one, bounds connecting alone (curl uses the
    /// shorter of it and the whole-exchange limit).
    ///
    /// A body streamed to a reader has no limit on silence: the reader pauses the transfer
    /// as long as it likes, and an event stream may be quiet for minutes. Only the
    /// connection must be made in time (the client times the head).
    private func configureTimeout(_ plan: CurlRequestPlan) throws(CurlError) {
        if plan.connectTimeoutMilliseconds > 0 {
            try easy.set(KCURLOPT_CONNECTTIMEOUT_MS, plan.connectTimeoutMilliseconds)
        }
        guard case .silence(let silence) = plan.timeLimit else {
            try easy.set(KCURLOPT_TIMEOUT_MS, millisecondsLeft)
            return
        }
        guard silence > 0 else { return }
        if plan.connectTimeoutMilliseconds == 0 {
            try easy.set(KCURLOPT_CONNECTTIMEOUT_MS, silence)
        }
        guard submission.channel == nil else { return }
        try easy.set(KCURLOPT_LOW_SPEED_LIMIT, 1)
        // Whole seconds only, rounded up.
        try easy.set(KCURLOPT_LOW_SPEED_TIME, (silence + 999) / 1000)
    }

    private func configureMethodAndBody(_ plan: CurlRequestPlan) throws(CurlError) {
        switch plan.method {
        case .get:
            try easy.set(KCURLOPT_HTTPGET, true)
        case .head:
            try easy.set(KCURLOPT_NOBODY, true)
        case .post:
            try easy.set(KCURLOPT_POST, true)
        case .custom(let method):
            try easy.set(KCURLOPT_CUSTOMREQUEST, method)
        }
        switch plan.body {
        case .data(let body):
            try easy.set(KCURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(body.count))
            try easy.set(KCURLOPT_POSTFIELDS, pointer: bodyBuffer.map { UnsafeRawPointer($0.baseAddress) } ?? nil)
        case .stream(let body):
            guard let upload else { return }
            // POST without POSTFIELDS reads the body from the read callback; CUSTOMREQUEST
            // (set above) still names the real method.
            try easy.set(KCURLOPT_POST, true)
            // -1 for a length not known in advance (a compressed body): curl then sends it
            // chunked over HTTP/1.1 (RFC 9112 §7.1), in DATA frames over HTTP/2.
            try easy.set(KCURLOPT_POSTFIELDSIZE_LARGE, offset: body.wireLength ?? -1)
            let userdata = UnsafeRawPointer(Unmanaged.passUnretained(upload).toOpaque())
            try easy.set(KCURLOPT_READFUNCTION, callback: Callbacks.read)
            try easy.set(KCURLOPT_READDATA, pointer: userdata)
            try easy.set(KCURLOPT_SEEKFUNCTION, seek: Callbacks.seek)
            try easy.set(KCURLOPT_SEEKDATA, pointer: userdata)
        case nil:
            break
        }
    }

    private func configureHeaders(_ lines: [String]) throws(CurlError) {
        var list: OpaquePointer?
        for line in lines {
            // `withCString` lends a native string's own bytes; passing `line` as a C string
            // argument would copy them into a new array first.
            guard let longer = line.withCString({ kcurl_slist_append(list, $0) }) else {
                if let list { kcurl_slist_free_all(list) }
                throw CurlError(code: CurlError.failedInitialization, message: "out of memory building the header list")
            }
            list = longer
        }
        headerList = list
        try easy.set(KCURLOPT_HTTPHEADER, pointer: list.map { UnsafeRawPointer($0) })
    }

    private func configureConnection(_ configuration: CurlTransport.Configuration) throws {
        try configureProxyTLS(configuration)
        switch configuration.httpVersion {
        case .automatic:
            break
        case .http1_1:
            try easy.set(KCURLOPT_HTTP_VERSION, Int(KCURL_HTTP_VERSION_1_1))
            return
        case .http2:
            try easy.set(KCURLOPT_HTTP_VERSION, Int(KCURL_HTTP_VERSION_2TLS))
        case .http2PriorKnowledge:
            try easy.set(KCURLOPT_HTTP_VERSION, Int(KCURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE))
            asksHTTP2PriorKnowledge = !submission.plan.isHTTPS
            // libcurl 7.88 fails a second request on a plain HTTP/2 connection, after or
            // beside the first, with a framing error (`curl --http2-prior-knowledge URL URL`
            // does too): each request gets a connection of its own, closed after it.
            if !submission.plan.isHTTPS {
                try easy.set(KCURLOPT_FRESH_CONNECT, true)
                try easy.set(KCURLOPT_FORBID_REUSE, true)
            }
        }
        // HTTP/2 over TLS multiplexes every request to a host on one connection (RFC 9113
        // §5), but only once curl knows the connection speaks it: without waiting for that,
        // requests started together would each open a connection of their own.
        if submission.plan.isHTTPS {
            try easy.set(KCURLOPT_PIPEWAIT, true)
        }
    }

    /// Checks an HTTPS proxy's certificate as the server's is checked: the
    /// `CURLOPT_PROXY_*` options apply to whatever URL goes through such a proxy, plain http
    /// included. They date from curl 7.52, so an older library that does not know them is no
    /// reason to fail the request.
    ///
    /// - Throws: `KringleError.invalidRequest` when both a CA file and CA data are set, for
    ///   any URL (the server's options in CurlTransfer+TLS.swift rely on this check).
    private func configureProxyTLS(_ configuration: CurlTransport.Configuration) throws {
        if !configuration.verifiesCertificates {
            try? easy.set(KCURLOPT_PROXY_SSL_VERIFYPEER, false)
            try? easy.set(KCURLOPT_PROXY_SSL_VERIFYHOST, 0)
        }
        switch (configuration.certificateAuthorityFile, configuration.certificateAuthorityPEM) {
        case (nil, nil):
            break
        case (let file?, nil):
            try? easy.set(KCURLOPT_PROXY_CAINFO, file)
            // Instead of the system's, as for the server (CurlTransfer+TLS.swift).
            try? easy.set(KCURLOPT_PROXY_CAPATH, pointer: nil)
        case (nil, let pem?):
            try? easy.set(KCURLOPT_PROXY_CAINFO_BLOB, blob: pem)
            try? easy.set(KCURLOPT_PROXY_CAPATH, pointer: nil)
        case (_?, _?):
            // CURLOPT_CAINFO_BLOB overrides CURLOPT_CAINFO: one of them would be ignored.
            throw KringleError.invalidRequest(
                "CurlTransport.Configuration sets both certificateAuthorityFile and certificateAuthorityPEM; libcurl would use only the PEM data, so set one."
            )
        }
    }
}

// MARK: - Callbacks

extension CurlTransfer {
    /// The C functions curl calls back into. Each receives the object it works for as an
    /// unretained `Unmanaged` pointer (`CURLOPT_WRITEDATA`, `CURLOPT_HEADERDATA`,
    /// `CURLOPT_READDATA`…); the transfer keeps those objects alive for as long as the easy
    /// handle points at them. libcurl calls them from inside `curl_multi_socket_action`, so on
    /// the driving thread, which each checks in debug builds.
    enum Callbacks {
        /// `CURLOPT_WRITEFUNCTION`: body bytes, for the ``ResponseCollector``. Returning fewer
        /// bytes than given aborts the transfer, which is what a failed file write must do;
        /// `CURL_WRITEFUNC_PAUSE` keeps the bytes in curl and pauses the transfer until
        /// `curl_easy_pause` resumes it, which is how a slow reader holds the network back.
        static let body: kcurl_data_callback = { buffer, size, count, userdata in
            ThreadConfinement.assertOnDrivingThread("a libcurl callback")
            let length = size * count
            guard let userdata, let buffer, length > 0 else { return length }
            let collector = Unmanaged<ResponseCollector>.fromOpaque(userdata).takeUnretainedValue()
            switch collector.receive(body: UnsafeRawBufferPointer(start: buffer, count: length)) {
            case .taken: return length
            case .stop: return 0
            case .pause: return Int(KCURL_WRITEFUNC_PAUSE)
            }
        }

        /// `CURLOPT_READFUNCTION`: the next bytes of a streamed body, from the ``UploadSource``.
        static let read: kcurl_data_callback = { buffer, size, count, userdata in
            ThreadConfinement.assertOnDrivingThread("a libcurl callback")
            guard let userdata, let buffer else { return Int(KCURL_READFUNC_ABORT) }
            let source = Unmanaged<UploadSource>.fromOpaque(userdata).takeUnretainedValue()
            return source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
        }

        /// `CURLOPT_SEEKFUNCTION`: rewinds the ``UploadSource`` to send the body again.
        static let seek: kcurl_seek_callback = { userdata, offset, origin in
            ThreadConfinement.assertOnDrivingThread("a libcurl callback")
            guard let userdata else { return Int32(KCURL_SEEKFUNC_FAIL) }
            return Unmanaged<UploadSource>.fromOpaque(userdata).takeUnretainedValue().seek(to: offset, origin: origin)
        }

        /// `CURLOPT_XFERINFOFUNCTION`: byte counts, for the ``ProgressRelay``. Returns 0, "go on".
        static let progress: kcurl_xferinfo_callback = { userdata, downloadTotal, downloadNow, _, uploadNow in
            ThreadConfinement.assertOnDrivingThread("a libcurl callback")
            guard let userdata else { return 0 }
            let relay = Unmanaged<ProgressRelay>.fromOpaque(userdata).takeUnretainedValue()
            relay.update(sent: uploadNow, received: downloadNow, expectedToReceive: downloadTotal)
            return 0
        }

        /// `CURLOPT_HEADERFUNCTION`: one complete header line at a time, CRLF included, for the
        /// ``ResponseCollector``. Returning 0 aborts the transfer, which a malformed status line
        /// must do.
        static let header: kcurl_data_callback = { buffer, size, count, userdata in
            ThreadConfinement.assertOnDrivingThread("a libcurl callback")
            let length = size * count
            guard let userdata, let buffer else { return length }
            let collector = Unmanaged<ResponseCollector>.fromOpaque(userdata).takeUnretainedValue()
            let line = CurlHeaderLine(bytes: UnsafeRawBufferPointer(start: buffer, count: length))
            return collector.receive(line) ? length : 0
        }
    }
}
