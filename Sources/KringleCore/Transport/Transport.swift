import Foundation
@_spi(KringleInternals) import KringlePromise

/// The port through which ``NetworkClient`` talks to the network.
///
/// An adapter sends one request and reports one response. It is given only requests the
/// client has checked (``ValidatedRequest``): a field with a line break never reaches it.
/// The contract:
/// - send exactly the given request, once (method, URL, headers and body as they are);
/// - follow no redirect: a 3xx response is returned like any other, so the client sees every
///   hop;
/// - handle no cookies: neither store `Set-Cookie` nor add a `Cookie` header;
/// - keep repeated response headers as separate fields where the platform allows;
/// - stop the transfer when the returned promise is cancelled
///   (``/KringlePromise/Promise/onCancel(_:)``);
/// - reject with ``KringleError/transport(_:)`` when no response arrives,
///   ``KringleError/malformedResponse(_:reason:)`` when what arrives is not an HTTP response,
///   ``KringleError/incompleteResponse(_:received:expected:underlying:)`` when the response
///   began but was cut short, or ``KringleError/timedOut(_:)`` when the request's
///   ``HTTPRequest/timeout`` passes.
///
/// ``CurlTransport`` and `URLSessionTransport` ship with Kringle
/// (`NetworkClient.makeDefaultTransport()` picks one per platform);
/// `KringleTesting.StubTransport` serves canned responses in tests.
///
/// ```swift
/// struct LoggingTransport: Transport {
///     let base: any Transport
///     func send(_ request: ValidatedRequest) -> Promise<HTTPResponse> {
///         print(request.method, request.url?.absoluteString ?? "")
///         return base.send(request)
///     }
/// }
/// let client = NetworkClient(transport: LoggingTransport(base: URLSessionTransport()))
/// ```
public protocol Transport: Sendable {
    /// Sends `request` once and reports the response, whatever its status.
    func send(_ request: ValidatedRequest) -> Promise<HTTPResponse>

    /// Sends a request with a streamed body or a response body bound for a file, under the
    /// same contract as ``send(_:)``.
    ///
    /// A default implementation buffers the transfer in memory, so an adapter that only
    /// implements ``send(_:)`` still works; adapters that can stream override it.
    func transfer(_ transfer: TransferRequest) -> Promise<HTTPResponse>
}

extension Transport {
    /// Checks `request` (``ValidatedRequest/init(_:)``), then sends it with
    /// ``send(_:)-(ValidatedRequest)``: a request that breaks RFC 9110's grammar is rejected
    /// with ``KringleError/invalidRequest(_:)`` and never sent.
    public func send(_ request: HTTPRequest) -> Promise<HTTPResponse> {
        do {
            return send(try ValidatedRequest(request))
        } catch {
            return Promise(error: error)
        }
    }

    /// Sends a transfer by buffering it in memory: the body is read whole, and the response
    /// body is written through ``TransferRequest/responseBodyHandle`` (or else to
    /// ``TransferRequest/responseBodyFile``), or offered to
    /// ``TransferRequest/responseBodyChannel`` in one chunk, once it has arrived.
    ///
    /// This default keeps every adapter working; `URLSessionTransport` and ``CurlTransport``
    /// stream instead.
    public func transfer(_ transfer: TransferRequest) -> Promise<HTTPResponse> {
        var request = transfer.request
        let sentBytes: Int64
        do {
            if let body = transfer.body { request = request.withBody(try body.readAll()) }
            sentBytes = Int64(request.request.body?.count ?? 0)
        } catch {
            return Promise(error: error)
        }
        return send(request).mapResultInline { result in
            var response = try result.get()
            transfer.progress?(
                TransferReport(
                    sent: sentBytes,
                    received: Int64(response.body.count),
                    expectedToReceive: Int64(response.body.count),
                    statusCode: response.statusCode
                ))
            if let channel = transfer.responseBodyChannel {
                // An empty channel takes any chunk; the reader gets the whole body at once.
                if !response.body.isEmpty { _ = channel.offer(response.body) }
                channel.finish()
                response.body = Data()
            } else if let handle = transfer.responseBodyHandle {
                do {
                    try handle.truncate(atOffset: 0)
                    try handle.write(contentsOf: response.body)
                    try handle.close()
                } catch {
                    throw KringleError.file(transfer.responseBodyFile ?? URL(fileURLWithPath: "/"), underlying: error)
                }
                response.body = Data()
            } else if let file = transfer.responseBodyFile {
                do {
                    try response.body.write(to: file)
                } catch {
                    throw KringleError.file(file, underlying: error)
                }
                response.body = Data()
            }
            return response
        }
    }
}
