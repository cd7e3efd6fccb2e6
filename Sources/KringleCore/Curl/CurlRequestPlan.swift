import CCurlShim
import Foundation

/// What libcurl must be told to send one ``HTTPRequest``, worked out before any curl call so
/// that bad requests are rejected on the caller's thread and the rules can be unit-tested.
struct CurlRequestPlan: Sendable {
    /// How the method reaches curl: GET and HEAD have dedicated options, POST is implied by
    /// a body, everything else is spelled out with `CURLOPT_CUSTOMREQUEST`.
    enum Method: Sendable, Equatable {
        case get
        case head
        case post
        case custom(String)
    }

    /// The request's URL, reported as the response URL if curl cannot say which URL answered.
    var requestURL: URL
    /// The absolute URL text handed to `CURLOPT_URL`.
    var url: String
    /// Whether the URL's scheme is https: only then does the transfer speak TLS with the
    /// server (the client follows redirects itself, so a transfer never leaves its URL).
    var isHTTPS: Bool
    /// For a WebSocket: curl only connects (CONNECT_ONLY), and the engine's WebSocket links
    /// write and read the rest (``CurlWebSocketLinks``).
    var connectsOnly = false
    /// The Unix socket to connect to instead of the URL's host, for an `http+unix` or
    /// `https+unix` URL (CurlRequestPlan+UnixSocket.swift); ``url`` is then `http://localhost/…`.
    var unixSocketPath: String?
    var method: Method
    /// Where the body comes from.
    enum Body: Sendable {
        /// Bytes in memory, sent with `CURLOPT_POSTFIELDS`.
        case data(Data)
        /// A body read in chunks by the read callback, with its length announced up front when
        /// it is known (not for a compressed body, which goes chunked).
        case stream(StreamedBody)
    }

    /// The body; `nil` sends no body and no `Content-Length`.
    var body: Body?
    /// `CURLOPT_HTTPHEADER` lines, including the ones that switch off curl's own headers.
    var headerLines: [String]
    /// How long the exchange may take.
    enum TimeLimit: Sendable, Equatable {
        /// The whole exchange must be over by then, a wait for a connection included
        /// (`CURLOPT_TIMEOUT_MS`, worked out from it as the transfer starts); `nil` for no
        /// limit. On the system clock, which the driving thread reads.
        case deadline(Deadline?)
        /// For a transfer, which may rightly take minutes: the connection must be ready
        /// within this many milliseconds, and then the transfer may not go silent for as long
        /// (a limit on silence in whole seconds, `CURLOPT_LOW_SPEED_TIME`); 0 for no limit.
        case silence(milliseconds: Int)
    }

    /// The request's time limit.
    var timeLimit: TimeLimit
    /// The longest time to get the connection ready in milliseconds
    /// (`CURLOPT_CONNECTTIMEOUT_MS`); 0 leaves it to ``timeLimit``.
    var connectTimeoutMilliseconds = 0

    /// When the whole exchange must be over, when the plan has a deadline.
    var deadline: Deadline? {
        guard case .deadline(let deadline) = timeLimit else { return nil }
        return deadline
    }

    /// Works out the plan for `request`.
    ///
    /// - Parameters:
    ///   - request: the request to send as it is; its `timeout` is not read (the
    ///     caller chose `timeLimit`).
    ///   - timeLimit: the time the exchange may take.
    ///   - streamedBody: a body to stream instead of `request.body`.
    /// - Throws: `KringleError.invalidRequest` for a URL that is not HTTP's, or a header that
    ///   would break the request framing.
    init(_ request: HTTPRequest, timeLimit: TimeLimit, streamedBody: StreamedBody? = nil) throws(KringleError) {
        let url = request.url
        let scheme = url.scheme?.lowercased()
        if scheme == "http" || scheme == "https" {
            self.url = url.absoluteString
            isHTTPS = scheme == "https"
        } else if let socket = try Self.unixSocketTarget(of: url) {
            // Unix domain sockets (issue 32): CurlRequestPlan+UnixSocket.swift.
            self.url = socket.curlURL
            isHTTPS = socket.usesTLS
            unixSocketPath = socket.socketPath
        } else {
            // The URL is the caller's, and may hold a password (ftp://user:pass@…): shown as
            // the client's default redaction shows URLs in logs.
            throw .invalidRequest(
                "CurlTransport sends only http, https, http+unix and https+unix URLs, not \(Redaction.default.redacting(url))."
            )
        }
        requestURL = url
        let methodName = request.method.rawValue
        if let streamedBody {
            (method, body) = Self.method(methodName, stream: streamedBody)
        } else {
            let (method, data) = Self.method(methodName, body: request.body)
            self.method = method
            body = data.map { .data($0) }
        }
        headerLines = try Self.headerLines(request.headers, hasBody: body != nil)
        self.timeLimit = timeLimit
    }

    /// Maps a method and body to curl's way of sending them.
    static func method(_ name: String, body: Data?) -> (Method, Data?) {
        switch name {
        case "HEAD":
            return (.head, nil)
        case "GET" where body == nil || body?.isEmpty == true:
            return (.get, nil)
        case "POST":
            // RFC 9110 §8.6: a method that defines a meaning for content gets a
            // Content-Length, so an empty POST says "Content-Length: 0".
            return (.post, body ?? Data())
        case "PUT", "PATCH":
            return (.custom(name), body ?? Data())
        default:
            return (.custom(name), body)
        }
    }

    /// Maps a method and a streamed body: the body goes with every method but HEAD.
    static func method(_ name: String, stream: StreamedBody) -> (Method, Body?) {
        switch name {
        case "HEAD": return (.head, nil)
        case "POST": return (.post, .stream(stream))
        default: return (.custom(name), .stream(stream))
        }
    }

    /// The header lines: the request's own, in their order, then `Accept-Encoding` unless the
    /// request names its own, then the ones that remove curl's defaults.
    static func headerLines(_ fields: HTTPHeaders, hasBody: Bool) throws(KringleError) -> [String] {
        var lines: [String] = []
        lines.reserveCapacity(fields.count + 3)
        var hasExpect = false
        var hasContentType = false
        var hasAcceptEncoding = false
        for field in fields {
            let (name, value) = (field.name, field.value)
            // RFC 9110 §5.1: a field name is a token.
            guard RequestValidation.isToken(name), !value.withContiguousUTF8({ $0.contains(where: isLineBreakOrNull) })
            else {
                throw .invalidRequest("The header \(name.debugDescription) has a name or value that cannot be sent.")
            }
            hasExpect = hasExpect || name.equalsIgnoringASCIICase("expect")
            hasContentType = hasContentType || name.equalsIgnoringASCIICase("content-type")
            hasAcceptEncoding = hasAcceptEncoding || name.equalsIgnoringASCIICase("accept-encoding")
            // "Name:" would tell curl to remove the header; "Name;" sends it empty.
            lines.append(value.isEmpty ? name + ";" : headerLine(name, value))
        }
        if !hasAcceptEncoding, let acceptEncoding = Self.acceptEncodingLine {
            lines.append(acceptEncoding)
        }
        if !hasExpect {
            // curl would otherwise add "Expect: 100-continue" to larger bodies and wait up to
            // a second for the interim response; an empty value suppresses it.
            lines.append("Expect:")
        }
        if hasBody, !hasContentType {
            // POSTFIELDS makes curl claim application/x-www-form-urlencoded; send none instead.
            lines.append("Content-Type:")
        }
        return lines
    }

    /// The `Accept-Encoding` line curl would write for the codings it decodes
    /// (``CurlTransfer`` asks it to decode them all), or `nil` when it cannot tell. Sent as
    /// the request's own field, curl writes none: it formats its own anew for every request,
    /// through its printf. With the line ours, a request through the transport costs about
    /// 2,900 instructions fewer (callgrind, libcurl 7.88.1).
    static let acceptEncodingLine: String? = {
        guard (try? CurlLibrary.load().get()) != nil, let codings = kcurl_content_encodings() else { return nil }
        return "Accept-Encoding: " + String(cString: codings)
    }()

    /// `"name: value"`, written once into storage of its own: `name + ": " + value` builds
    /// an intermediate string and appends twice, for every field of every request.
    private static func headerLine(_ name: String, _ value: String) -> String {
        name.withContiguousUTF8 { name in
            value.withContiguousUTF8 { value in
                String(unsafeUninitializedCapacity: name.count + 2 + value.count) { line in
                    let colon = line.initialize(fromContentsOf: name)
                    line[colon] = UInt8(ascii: ":")
                    line[colon + 1] = UInt8(ascii: " ")
                    return line[(colon + 2)...].initialize(fromContentsOf: value)
                }
            }
        }
    }

    /// A duration (a connect timeout, a limit on silence) in whole milliseconds, rounded up
    /// so that 0.0001 s still means "a limit"; zero, negative and non-finite intervals mean
    /// no limit, and huge ones are capped at about 24 days (what a C `long` of milliseconds
    /// holds everywhere). A point in time is a ``Deadline`` instead, which converts itself
    /// (``Deadline/milliseconds(on:)``).
    static func milliseconds(_ interval: TimeInterval) -> Int {
        guard interval.isFinite, interval > 0 else { return 0 }
        let milliseconds = min((interval * 1000).rounded(.up), Double(Int32.max))
        return max(1, Int(milliseconds))
    }

    /// CR, LF or NUL, which would end the header line early (byte by byte: every request
    /// passes here).
    private static func isLineBreakOrNull(_ byte: UInt8) -> Bool {
        byte == 0x0D || byte == 0x0A || byte == 0x00
    }
}
