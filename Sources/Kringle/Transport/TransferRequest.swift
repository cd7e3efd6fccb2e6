import Foundation
@_spi(KringleInternals) import KringlePromise
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request whose body, response body or both are too big for memory: what
/// ``Transport/transfer(_:)`` sends.
public struct TransferRequest: Sendable {
    /// The request; its `httpBody` is ignored when ``body`` is set.
    public var request: URLRequest
    /// The body to stream, if any.
    public var body: StreamedBody?
    /// Where to write the response body (created or truncated); the response's `body` is
    /// then empty. `nil` keeps the body in memory.
    public var responseBodyFile: URL?
    /// Told how many bytes went out and came in so far; called on the transport's threads,
    /// possibly often, so it must return quickly.
    public var progress: (@Sendable (TransferReport) -> Void)?

    /// Creates a transfer request.
    public init(
        request: URLRequest,
        body: StreamedBody? = nil,
        responseBodyFile: URL? = nil,
        progress: (@Sendable (TransferReport) -> Void)? = nil
    ) {
        self.request = request
        self.body = body
        self.responseBodyFile = responseBodyFile
        self.progress = progress
    }
}

/// A transport's account of a transfer so far.
public struct TransferReport: Sendable, Hashable {
    /// Body bytes sent.
    public var sent: Int64
    /// Body bytes received for the response being received now.
    public var received: Int64
    /// Its `Content-Length`, when known.
    public var expectedToReceive: Int64?
    /// Its status code, once its head has arrived.
    public var statusCode: Int?

    /// Creates a report.
    public init(sent: Int64, received: Int64, expectedToReceive: Int64?, statusCode: Int?) {
        self.sent = sent
        self.received = received
        self.expectedToReceive = expectedToReceive
        self.statusCode = statusCode
    }
}

extension Transport {
    /// Sends a transfer by buffering it in memory: the body is read whole, and the response
    /// body is written to ``TransferRequest/responseBodyFile`` once it has arrived.
    ///
    /// This default keeps every adapter working; ``URLSessionTransport`` and `CurlTransport`
    /// stream instead.
    public func transfer(_ transfer: TransferRequest) -> Promise<HTTPResponse> {
        var request = transfer.request
        let sentBytes: Int64
        do {
            if let body = transfer.body { request.httpBody = try body.readAll() }
            sentBytes = Int64(request.httpBody?.count ?? 0)
        } catch {
            return Promise(error: error)
        }
        return send(request).mapResultInline { result in
            var response = try result.get()
            transfer.progress?(TransferReport(
                sent: sentBytes,
                received: Int64(response.body.count),
                expectedToReceive: Int64(response.body.count),
                statusCode: response.statusCode
            ))
            if let file = transfer.responseBodyFile {
                do {
                    try response.body.write(to: file)
                } catch {
                    throw KringleError.transport(error)
                }
                response.body = Data()
            }
            return response
        }
    }
}
