import Foundation

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
    /// The bounds the response must stay within (the client's); a transport that crosses
    /// one stops the transfer and rejects with ``KringleError/responseTooLarge(_:limit:)``.
    public var limits: ResponseLimits

    /// Creates a transfer request.
    public init(
        request: URLRequest,
        body: StreamedBody? = nil,
        responseBodyFile: URL? = nil,
        limits: ResponseLimits = .default,
        progress: (@Sendable (TransferReport) -> Void)? = nil
    ) {
        self.request = request
        self.body = body
        self.responseBodyFile = responseBodyFile
        self.limits = limits
        self.progress = progress
    }
}
