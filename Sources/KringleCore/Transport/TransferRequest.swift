import Foundation

/// A request whose body, response body or both are too big for memory: what
/// ``Transport/transfer(_:)`` sends.
public struct TransferRequest: Sendable {
    /// The request, checked (``ValidatedRequest``); its body is ignored when ``body``
    /// is set.
    public var request: ValidatedRequest
    /// The body to stream, if any.
    public var body: StreamedBody?
    /// Where to write the response body (created or truncated); the response's `body` is
    /// then empty. `nil` keeps the body in memory.
    public var responseBodyFile: URL?
    /// An open descriptor on ``responseBodyFile`` to write the body through instead of
    /// opening the path: truncate it to zero bytes (which also moves its offset to 0), then
    /// write. The transfer owns it: close it when done, or let it close itself when released.
    ///
    /// ``NetworkClient`` sets it for downloads, so that a file swapped in at the temporary
    /// path by someone who can write to the directory is never opened or written. The
    /// built-in transports use it; a transport that only knows ``responseBodyFile`` still
    /// works, opening the path.
    public var responseBodyHandle: FileHandle?
    /// Told how many bytes went out and came in so far; called on the transport's threads,
    /// possibly often, so it must return quickly.
    public var progress: (@Sendable (TransferReport) -> Void)?
    /// The bounds the response must stay within (the client's); a transport that crosses
    /// one stops the transfer and rejects with ``KringleError/responseTooLarge(_:limit:)``.
    public var limits: ResponseLimits
    /// Where the response body goes as it arrives, for a reader to take chunk by chunk.
    ///
    /// With a channel, the transport settles its promise as soon as the final response's
    /// head has arrived (its `body` empty, no trailers), offers each chunk of the body to
    /// the channel, and holds the transfer back while the channel refuses (see
    /// ``ResponseBodyChannel``); at the end it calls ``ResponseBodyChannel/finish(throwing:)``.
    /// When the reader cancels the channel, the transport stops the transfer. The
    /// default ``Transport/transfer(_:)`` buffers the body and offers it in one chunk.
    public var responseBodyChannel: ResponseBodyChannel?
    /// The longest time to get a connection ready (resolving the host, TCP, a proxy's
    /// tunnel, TLS), rejecting with `KringleError.timedOut(.connect)` when it passes; `nil`
    /// (the default) leaves connecting to the request's ``HTTPRequest/timeout``. A transport
    /// that cannot bound connecting alone sends the transfer without it, as
    /// `URLSessionTransport` does (which its client reports once through its logger, see
    /// ``NetworkClient/Configuration-swift.struct/connectTimeout``); the other limits still
    /// hold.
    public var connectTimeout: TimeInterval?

    /// Creates a transfer request; every parameter but `request` is described on its property.
    public init(
        request: ValidatedRequest,
        body: StreamedBody? = nil,
        responseBodyFile: URL? = nil,
        responseBodyHandle: FileHandle? = nil,
        limits: ResponseLimits = .default,
        responseBodyChannel: ResponseBodyChannel? = nil,
        progress: (@Sendable (TransferReport) -> Void)? = nil
    ) {
        self.request = request
        self.body = body
        self.responseBodyFile = responseBodyFile
        self.responseBodyHandle = responseBodyHandle
        self.limits = limits
        self.responseBodyChannel = responseBodyChannel
        self.progress = progress
    }
}
