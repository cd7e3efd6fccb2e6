import Foundation

/// Everything that can go wrong with a Kringle request, apart from cancellation (which
/// surfaces as ``/KringlePromise/PromiseError/cancelled``).
///
/// ```swift
/// client.get(CatEndpoint.pet(catName: "Tom"), as: Cat.self).catch { error in
///     if case KringleError.unacceptableStatusCode(404, _) = error { print("no such cat") }
/// }
/// ```
public enum KringleError: Error, Sendable, CustomStringConvertible {
    /// The request could not be formed: a URL that does not form from the endpoint, a
    /// method or body the client cannot send. The string says what was wrong.
    case invalidRequest(String)
    /// The body did not encode (a `RequestBody.json` value whose `encode(to:)` failed). The
    /// coding path is in the error's context; an error thrown by your own `encode(to:)` is
    /// its `underlyingError`.
    case encodingFailed(EncodingError)
    /// A local file could not be used: an upload's file is missing, unreadable or changed
    /// while it was sent; a download's temporary file could not be made or moved into place.
    /// The URL is the file's, the underlying error the file system's (or
    /// ``KringleError/FileSizeChanged``).
    case file(URL, underlying: any Error)
    /// No response arrived: connection refused or reset, DNS… The underlying error is the
    /// transport's own. TLS failures have a case of their own, ``tls(_:_:underlying:)``; a
    /// response that began and then broke off, ``incompleteResponse(_:received:expected:underlying:)``.
    case transport(any Error)
    /// The TLS connection to the URL failed, and the failure says which part (an expired
    /// certificate, a host name mismatch, a pin…); the underlying error is the transport's
    /// own (a ``CurlError`` or a `URLError`), with its TLS library's message. Not retried:
    /// the same server would present the same certificate again.
    case tls(URL, TLSFailure, underlying: any Error)
    /// A time limit passed before the response was complete; the phase says which
    /// (``TimeoutPhase``): connecting, silence on the connection, or the whole request.
    /// ``RetryPolicy`` retries it for idempotent methods.
    ///
    /// ```swift
    /// if case KringleError.timedOut(.connect) = error { print("the server is unreachable") }
    /// ```
    case timedOut(TimeoutPhase)
    /// The transport cannot do what the request or its configuration asks (a Unix-socket
    /// URL for `URLSessionTransport`, say), so it sent nothing rather than send it another
    /// way; or the server cannot speak what the configuration asks for (h2c, to a server
    /// that closed the connection on HTTP/2's preface before any request reached it). The
    /// string says what and why. Not retried: the same request would fail the same way.
    case unsupportedConfiguration(String)
    /// The server answered with a status outside the acceptable range. The response, body
    /// included, is kept so that you can decode your API's error payload.
    case unacceptableStatusCode(Int, Response<Data>)
    /// The server's answer broke the protocol in a way the client detected (a resumed
    /// download whose `Content-Range` does not start where the partial file ends, say). The
    /// response is kept, with what was wrong.
    case invalidResponse(Response<Data>, reason: String)
    /// What the server sent could not be read as an HTTP response at all, so there is no
    /// status or body to keep: a status line such as `Http/1.1 200 OK` (RFC 9112 §2.3 makes
    /// `HTTP` case-sensitive) or `HTTP/1.1 20`. The URL is the request's, the reason says
    /// what was wrong. ``RetryPolicy`` retries it for idempotent methods (a middlebox or a
    /// poisoned keep-alive connection may be to blame; a server that always answers so is
    /// retried only `maxRetryCount` times).
    case malformedResponse(URL, reason: String)
    /// The response from the URL began (its head arrived) but the connection ended before
    /// it was complete: closed or reset after the head or partway through the body
    /// (RFC 9112 §8: a body shorter than its `Content-Length`, or a chunked body without
    /// its last chunk, is incomplete). The error keeps none of what arrived: a part of a
    /// body is not a response to act on.
    ///
    /// `received` is how many body bytes arrived, as sent (before any content coding was
    /// decoded), where the transport can tell; `expected` is the `Content-Length` the head
    /// announced, `nil` for a chunked body. The underlying error is the transport's own:
    /// a ``CurlError`` (18, `CURLE_PARTIAL_FILE`, or 56, `CURLE_RECV_ERROR`), a `URLError`
    /// (`-1`, `unknown`, or `-1005`, `networkConnectionLost`, on Linux). ``RetryPolicy``
    /// retries it for idempotent methods.
    case incompleteResponse(URL, received: Int64?, expected: Int64?, underlying: any Error)
    /// The body did not decode into the requested type. The description names the coding
    /// path and the expected type and shows the start of the body.
    case decodingFailed(DecodingError, Response<Data>)
    /// The server redirected more times than the client allows; the URL is the last
    /// `Location` it was sent to.
    case tooManyRedirects(URL)
    /// The response from the URL crossed one of the client's ``ResponseLimits``; the
    /// transfer was stopped there.
    case responseTooLarge(URL, limit: ResponseLimits.Limit)
    /// A redirect the client refused for safety: from `https` to plain `http` (unless
    /// ``NetworkClient/Configuration-swift.struct/allowsRedirectsFromHTTPSToHTTP`` is set),
    /// or onto a Unix socket from anywhere but that same socket (a server on the network
    /// must not steer the client into a local daemon's socket).
    case insecureRedirect(from: URL, to: URL)
    /// The proxy refused to forward the request to the URL: it answered `status`, to the
    /// request itself or to the `CONNECT` that opens a tunnel for an `https` URL. 407 Proxy
    /// Authentication Required (RFC 9110 §15.5.8) means it wants credentials, or turned
    /// away the ones given. `proxy` names it without credentials (`nil` when libcurl read it
    /// from the environment). Not retried.
    case proxyRefused(URL, proxy: URL?, status: Int)
    /// Nothing stored in the client's ``HTTPCache`` could answer the request to the URL, and
    /// it could not go to the network: its policy is ``CachePolicy/cacheOnly``, or it asked
    /// for `Cache-Control: only-if-cached` (RFC 9111 §5.2.1.7).
    case notCached(URL)
    /// A line of the streamed body from the URL was longer than the limit, in bytes
    /// (``ResponseStream/lines(maximumLength:)``); the transfer was stopped there.
    case lineTooLong(URL, limit: Int)
    /// Line number `line` (from 1) of the streamed body from the URL did not decode
    /// (``ResponseStream/decodedLines(as:decoder:maximumLength:)``); the transfer was
    /// stopped there.
    case lineDecodingFailed(DecodingError, line: Int, url: URL)
    /// The URL's answer cannot be a Server-Sent Events stream, so the stream ended for good
    /// (WHATWG HTML §9.2.3 "fail the connection"): a `204 No Content`, or a `Content-Type`
    /// other than `text/event-stream`. The reason says which; the response is the head
    /// (status, fields, metrics), without its body.
    case eventStreamRefused(Response<Data>, reason: String)
    /// The client's ``HostThrottle`` holds requests to the host (a pause the host asked
    /// for, or the pace), and the call's turn, `wait` seconds away, would come after its
    /// deadline; nothing was sent.
    case throttled(host: String, wait: TimeInterval)
    /// A walk through pages (``Pages``) met a `next` link to another origin than its first
    /// page's, which it does not follow unless allowed: the endpoint's headers would go there.
    case crossOriginPage(from: URL, to: URL)
    /// A walk through pages (``Pages``) was led back to a page it had walked: a loop, ended
    /// before the URL was asked for again.
    case repeatedPage(URL)
    /// The body could not be compressed as the endpoint's ``RequestCompression`` asked:
    /// zlib could not be loaded, or refused. Nothing was sent.
    case compressionFailed(CompressionFailure)
    /// The server did not open the WebSocket (RFC 6455 §4.1): it answered the opening
    /// handshake with another status than `101 Switching Protocols`, or without the fields
    /// the handshake requires. The reason says which; the response is the server's.
    case webSocketRefused(Response<Data>, reason: String)
    /// The WebSocket at the URL was closed, with the close frame's status code and reason
    /// (``WebSocketCloseCode/abnormalClosure`` when the connection dropped without one): what
    /// a send meets after the end, and how the messages end when the connection drops.
    case webSocketClosed(URL, WebSocketCloseCode, reason: String)
    /// The server at the URL broke the WebSocket protocol (a masked or reserved frame, text
    /// that is not UTF-8, a message over ``WebSocketOptions/maximumMessageLength``…): the
    /// connection was closed with the violation's ``WebSocketProtocolError/closeCode``.
    case webSocketProtocolViolation(URL, WebSocketProtocolError)
    /// The WebSocket at the URL did not answer a ping within `silence` seconds
    /// (``WebSocketOptions/pongTimeout``), so it was taken for dead and dropped.
    case webSocketUnresponsive(URL, silence: TimeInterval)
    /// A message from the WebSocket at the URL did not decode as the type
    /// ``WebSocket/messages(as:decoder:)`` asked for.
    case webSocketMessageDecodingFailed(DecodingError, message: WebSocketMessage, url: URL)

    /// The underlying error of ``KringleError/file(_:underlying:)`` when a file being sent
    /// changed size after the request was made: the bytes on the wire would no longer match
    /// the `Content-Length` sent.
    public struct FileSizeChanged: Error, Sendable, Equatable, CustomStringConvertible {
        /// The size when the request was made.
        public let expected: Int64
        /// The size found while sending (for a file that grew: the bytes read so far).
        public let found: Int64

        /// Creates the error.
        public init(expected: Int64, found: Int64) {
            self.expected = expected
            self.found = found
        }

        /// What changed, for a person.
        public var description: String {
            found > expected
                ? "the file grew while it was being sent (\(expected) bytes expected, more found)"
                : "the file changed size while it was being sent (\(expected) bytes expected, \(found) found)"
        }
    }

    /// What went wrong, for a person: the case, the URL and status where there is one, the
    /// decoding path, and the start of the body.
    public var description: String {
        switch self {
        case .invalidRequest(let reason):
            return "Invalid request: \(reason)"
        case .encodingFailed(let error):
            return "The body could not be encoded: " + Self.describe(error)
        case .file(let url, let underlying):
            return "The file \(url.path) could not be used: \(underlying)"
        case .transport(let error):
            return "The request failed before a response arrived: \(Self.describe(transport: error))"
        case .tls(let url, let failure, let underlying):
            return
                "The TLS connection to \(Self.shown(url)) failed: \(failure) (\(Self.describe(transport: underlying)))"
        case .timedOut(let phase):
            return "The request timed out: \(phase)."
        case .unsupportedConfiguration(let reason):
            return "The transport cannot send this request: \(reason)"
        case .unacceptableStatusCode(let status, let response):
            return "Unacceptable status code \(status) from \(Self.shown(response.url, response.redaction))"
                + Self.bodySnippet(response.body)
        case .invalidResponse(let response, let reason):
            return "Invalid response from \(Self.shown(response.url, response.redaction)): \(reason)"
        case .malformedResponse(let url, let reason):
            return "Malformed response from \(Self.shown(url)): \(reason)"
        case .incompleteResponse(let url, let received, let expected, let underlying):
            return "The response from \(Self.shown(url)) ended before it was complete"
                + Self.describeProgress(received: received, expected: expected)
                + " (\(Self.describe(transport: underlying)))"
        case .decodingFailed(let error, let response):
            return "Decoding the response from \(Self.shown(response.url, response.redaction)) failed: "
                + Self.describe(error) + Self.bodySnippet(response.body)
        case .tooManyRedirects(let url):
            return "Too many redirects; the last one pointed to \(Self.shown(url))"
        case .responseTooLarge(let url, let limit):
            return "The response from \(Self.shown(url)) crossed \(limit); the transfer was stopped"
        case .insecureRedirect(let source, let target):
            let why =
                UnixSocketURL.isUnixSocket(target)
                ? "which leads onto a Unix socket from elsewhere" : "which leaves HTTPS for plain HTTP"
            return "Refused a redirect from \(Self.shown(source)) to \(Self.shown(target)), \(why)"
        case .proxyRefused(let url, let proxy, let status):
            let name = proxy.map { "The proxy \($0.absoluteString)" } ?? "The proxy"
            let why =
                status == 407
                ? ": it wants credentials, or turned away the ones given (407 Proxy Authentication Required)"
                : " with status \(status)"
            return "\(name) refused to forward the request to \(Self.shown(url))\(why)"
        case .notCached(let url):
            return "No cached response for \(Self.shown(url)), and the request may not use the network"
        case .lineTooLong(let url, let limit):
            return "A line of the body from \(Self.shown(url)) was longer than \(limit) bytes; the transfer was stopped"
        case .lineDecodingFailed(let error, let line, let url):
            return "Line \(line) of the body from \(Self.shown(url)) did not decode: " + Self.describe(error)
        case .eventStreamRefused(let response, let reason):
            return "\(Self.shown(response.url, response.redaction)) did not answer with an event stream: \(reason)"
        case .compressionFailed(let failure):
            return "The body could not be compressed: \(failure)"
        case .crossOriginPage(let source, let target):
            return
                "Refused the next page at \(Self.shown(target)), another origin than the first page's \(Self.shown(source))"
        case .repeatedPage(let url):
            return "The next page, \(Self.shown(url)), was walked before: the pages loop"
        case .throttled(let host, let wait):
            return String(
                format: "Requests to %@ are held by the throttle for another %.2f s, past the call's deadline",
                host, wait)
        case .webSocketRefused(let response, let reason):
            return "\(Self.shown(response.url, response.redaction)) did not open a WebSocket: \(reason)"
        case .webSocketClosed(let url, let code, let reason):
            return "The WebSocket to \(Self.shown(url)) was closed (\(code))" + (reason.isEmpty ? "" : ": \(reason)")
        case .webSocketProtocolViolation(let url, let violation):
            return
                "The WebSocket server at \(Self.shown(url)) broke the protocol, so the connection was closed: \(violation)"
        case .webSocketUnresponsive(let url, let silence):
            return String(
                format: "The WebSocket to %@ answered no ping for %.1f s and was dropped", Self.shown(url), silence)
        case .webSocketMessageDecodingFailed(let error, _, let url):
            return "A message from the WebSocket at \(Self.shown(url)) did not decode: " + Self.describe(error)
        }
    }

    /// The same error with its URLs, the URL, headers, trailers and exchange URLs of the
    /// response it keeps, and the failing URL of a URLSession error it wraps, redacted by
    /// `redaction`, for a log event (the error the caller gets keeps the real ones).
    func redacted(with redaction: Redaction) -> KringleError {
        func hidden(_ url: URL) -> URL { redaction.redacting(url).value }
        func hidden(_ response: Response<Data>) -> Response<Data> {
            var response = response
            response.url = hidden(response.url)
            response.headers = redaction.redacting(response.headers).value
            response.trailers = redaction.redacting(response.trailers).value
            if var metrics = response.metrics {
                for index in metrics.exchanges.indices {
                    metrics.exchanges[index].url = hidden(metrics.exchanges[index].url)
                }
                response.metrics = metrics
            }
            response.redaction = redaction
            return response
        }
        // A URLSession error keeps its failing URL, every query item included, in its user
        // info; other errors a transport wraps are kept as they are.
        func hidden(underlying error: any Error) -> any Error {
            let nsError = error as NSError
            guard nsError.domain == NSURLErrorDomain else { return error }
            var userInfo = nsError.userInfo
            if let url = userInfo[NSURLErrorFailingURLErrorKey] as? URL {
                userInfo[NSURLErrorFailingURLErrorKey] = hidden(url)
            }
            // NSURLErrorFailingURLStringErrorKey: deprecated, still set by FoundationNetworking.
            let stringKey = "NSErrorFailingURLStringKey"
            if let text = userInfo[stringKey] as? String {
                userInfo[stringKey] = URL(string: text).map { hidden($0).absoluteString }
            }
            // Optional on Linux (an enum), not on Apple platforms (a struct): `as` fits both.
            guard error is URLError, let code = URLError.Code(rawValue: nsError.code) as URLError.Code? else {
                return NSError(domain: nsError.domain, code: nsError.code, userInfo: userInfo)
            }
            return URLError(code, userInfo: userInfo)
        }
        switch self {
        case .unacceptableStatusCode(let status, let response):
            return .unacceptableStatusCode(status, hidden(response))
        case .invalidResponse(let response, let reason):
            return .invalidResponse(hidden(response), reason: reason)
        case .decodingFailed(let error, let response):
            return .decodingFailed(error, hidden(response))
        case .malformedResponse(let url, let reason):
            return .malformedResponse(hidden(url), reason: reason)
        case .incompleteResponse(let url, let received, let expected, let underlying):
            return .incompleteResponse(
                hidden(url), received: received, expected: expected, underlying: hidden(underlying: underlying))
        case .tooManyRedirects(let url):
            return .tooManyRedirects(hidden(url))
        case .responseTooLarge(let url, let limit):
            return .responseTooLarge(hidden(url), limit: limit)
        case .insecureRedirect(let source, let target):
            return .insecureRedirect(from: hidden(source), to: hidden(target))
        case .proxyRefused(let url, let proxy, let status):
            return .proxyRefused(hidden(url), proxy: proxy, status: status)
        case .notCached(let url):
            return .notCached(hidden(url))
        case .crossOriginPage(let source, let target):
            return .crossOriginPage(from: hidden(source), to: hidden(target))
        case .repeatedPage(let url):
            return .repeatedPage(hidden(url))
        case .lineTooLong(let url, let limit):
            return .lineTooLong(hidden(url), limit: limit)
        case .lineDecodingFailed(let error, let line, let url):
            return .lineDecodingFailed(error, line: line, url: hidden(url))
        case .eventStreamRefused(let response, let reason):
            return .eventStreamRefused(hidden(response), reason: reason)
        case .webSocketRefused(let response, let reason):
            return .webSocketRefused(hidden(response), reason: reason)
        case .webSocketClosed(let url, let code, let reason):
            return .webSocketClosed(hidden(url), code, reason: reason)
        case .webSocketProtocolViolation(let url, let violation):
            return .webSocketProtocolViolation(hidden(url), violation)
        case .webSocketUnresponsive(let url, let silence):
            return .webSocketUnresponsive(hidden(url), silence: silence)
        case .webSocketMessageDecodingFailed(let error, let message, let url):
            return .webSocketMessageDecodingFailed(error, message: message, url: hidden(url))
        case .tls(let url, let failure, let underlying):
            return .tls(hidden(url), failure, underlying: hidden(underlying: underlying))
        case .transport(let underlying):
            return .transport(hidden(underlying: underlying))
        case .invalidRequest, .encodingFailed, .file, .timedOut, .unsupportedConfiguration, .compressionFailed,
            .throttled:
            return self
        }
    }

    /// The response the error carries: that of an unacceptable status, an invalid response,
    /// a failed decode, a refused event stream or WebSocket; `nil` for the others.
    public var response: Response<Data>? {
        switch self {
        case .unacceptableStatusCode(_, let response), .invalidResponse(let response, _),
            .decodingFailed(_, let response), .eventStreamRefused(let response, _),
            .webSocketRefused(let response, _):
            return response
        default:
            return nil
        }
    }

    /// A URL as a description shows it: with the secrets of the client's redaction hidden
    /// (the error itself keeps the real URL). Errors that carry no response know only the
    /// defaults.
    private static func shown(_ url: URL, _ redaction: Redaction = .default) -> String {
        redaction.redacting(url).description
    }

    /// A transport's error: URLSession's show their failing URL (twice, with every query
    /// item), so they are described by domain, code and reason, and the URL redacted.
    private static func describe(transport error: any Error) -> String {
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else { return "\(error)" }
        let reason = nsError.userInfo[NSLocalizedDescriptionKey] as? String ?? nsError.localizedDescription
        let url = (nsError.userInfo[NSURLErrorFailingURLErrorKey] as? URL).map { " (\(shown($0)))" } ?? ""
        return "\(nsError.domain) \(nsError.code): \(reason)\(url)"
    }

    /// How far a cut-short body got: ", after 5000 of 10000 body bytes", or less where less
    /// is known.
    private static func describeProgress(received: Int64?, expected: Int64?) -> String {
        switch (received, expected) {
        case (let received?, let expected?): return ", after \(received) of \(expected) body bytes"
        case (let received?, nil): return ", after \(received) body bytes"
        case (nil, let expected?): return " (\(expected) body bytes were announced)"
        case (nil, nil): return ""
        }
    }

    /// A readable account of a decoding error: what was wrong and where.
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, let context):
            return "expected \(type) at \(path(context.codingPath)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return
                "expected \(type) at \(path(context.codingPath)) but found null or nothing: \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "missing key \"\(key.stringValue)\" at \(path(context.codingPath))"
        case .dataCorrupted(let context):
            return "data corrupted at \(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    /// A readable account of an encoding error: the value, where, and why.
    static func describe(_ error: EncodingError) -> String {
        switch error {
        case .invalidValue(let value, let context):
            let cause = context.underlyingError.map { " (\($0))" } ?? ""
            return "\(type(of: value)) at \(path(context.codingPath)): \(context.debugDescription)\(cause)"
        @unknown default:
            return "\(error)"
        }
    }

    /// `items[2].name`, or "the top level".
    private static func path(_ codingPath: [any CodingKey]) -> String {
        let keys = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
        let joined = keys.joined()
        return joined.isEmpty ? "the top level" : String(joined.drop { $0 == "." })
    }

    /// The start of a body, for error messages.
    static func bodySnippet(_ body: Data, limit: Int = 256) -> String {
        guard !body.isEmpty else { return " (empty body)" }
        let prefix = body.prefix(limit)
        let text = String(decoding: prefix, as: UTF8.self)
        let ellipsis = body.count > limit ? "… (\(body.count) bytes)" : ""
        return "; body: \(text)\(ellipsis)"
    }
}
