/// A failed libcurl transfer: curl's result code and its explanation.
///
/// ``CurlTransport`` rejects with `KringleError.transport(CurlError)` for every failure
/// except a timeout (which is `KringleError.timedOut`), a response that is not HTTP
/// (`KringleError.malformedResponse`), a response cut short after its head
/// (`KringleError.incompleteResponse`, which carries the `CurlError`), a TLS failure
/// (`KringleError.tls`, which carries it too) and cancellation (`PromiseError.cancelled`).
///
/// ```swift
/// transport.send(request).catch { error in
///     if case KringleError.transport(let underlying) = error,
///        let curl = underlying as? CurlError, curl.code == CurlError.couldNotConnect {
///         print("server down:", curl.message)
///     }
/// }
/// ```
public struct CurlError: Error, Sendable, Hashable, CustomStringConvertible, TransportFailure {
    /// curl's `CURLcode`, such as 7 (`CURLE_COULDNT_CONNECT`); see
    /// https://curl.se/libcurl/c/libcurl-errors.html. When libcurl itself could not be loaded
    /// or set up, the code is 2 (`CURLE_FAILED_INIT`).
    public var code: Int

    /// What went wrong, in curl's words: the transfer's error buffer when curl filled it
    /// (it names the host, port and reason), otherwise `curl_easy_strerror`'s text.
    public var message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: a `CURLcode`.
    ///   - message: a readable explanation.
    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    /// `CURLE_FAILED_INIT`: libcurl could not be loaded, or a handle could not be created.
    public static let failedInitialization = 2
    /// `CURLE_COULDNT_RESOLVE_HOST`: the host name did not resolve.
    public static let couldNotResolveHost = 6
    /// `CURLE_COULDNT_CONNECT`: the connection was refused or could not be made.
    public static let couldNotConnect = 7
    /// `CURLE_PARTIAL_FILE`: the connection closed before the whole body arrived (after the
    /// head, or partway through the body); reported to callers as
    /// `KringleError.incompleteResponse`, with this error inside.
    public static let partialFile = 18
    /// `CURLE_OPERATION_TIMEDOUT`: reported to callers as `KringleError.timedOut` instead.
    public static let operationTimedOut = 28
    /// `CURLE_RECV_ERROR`: receiving failed, typically a connection reset. Before a response
    /// it is a `KringleError.transport`; once the head has arrived,
    /// `KringleError.incompleteResponse`.
    public static let receiveError = 56

    /// Whether this failure cut short a response whose head had arrived, so that
    /// ``CurlTransport`` reports `KringleError.incompleteResponse`: the connection closed
    /// early (18), sending or receiving failed (55, 56: a reset), or an HTTP/2 stream or
    /// connection failed (92, 16). `CURLE_PARTIAL_FILE` always means so; the others only
    /// once the head had arrived, since before it no response had begun.
    func cutsResponseShort(headArrived: Bool) -> Bool {
        code == Self.partialFile || (headArrived && Self.brokenConnectionCodes.contains(code))
    }

    /// `CURLE_HTTP2`, `CURLE_SEND_ERROR`, `CURLE_RECV_ERROR`, `CURLE_HTTP2_STREAM`.
    private static let brokenConnectionCodes: Set<Int> = [16, 55, 56, 92]

    /// Whether the request surely did not complete, so that sending it again is safe for an
    /// idempotent method (``/KringleCore/RetryPolicy`` retries these): the proxy or host did not
    /// resolve, the connection or the TLS handshake failed, or the connection broke or
    /// came back empty before a response (the cases URLSession reports as
    /// `cannotFindHost`, `cannotConnectToHost`, `secureConnectionFailed` and
    /// `networkConnectionLost`).
    public var requestNeverCompleted: Bool {
        Self.neverCompletedCodes.contains(code)
    }

    /// `CURLE_COULDNT_RESOLVE_PROXY`, `…_HOST`, `CURLE_COULDNT_CONNECT`,
    /// `CURLE_SSL_CONNECT_ERROR`, `CURLE_GOT_NOTHING`, `CURLE_SEND_ERROR`, `CURLE_RECV_ERROR`.
    private static let neverCompletedCodes: Set<Int> = [5, 6, 7, 35, 52, 55, 56]

    /// The code and the message, such as
    /// "curl error 7: Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server".
    public var description: String {
        "curl error \(code): \(message)"
    }
}
