import Foundation

// What the call's every hop needs besides the request.

/// How one call moves bytes that do not fit in memory: a body to stream, a file for the
/// response body, and whom to tell about progress.
@usableFromInline
struct TransferOptions: Sendable {
    var body: StreamedBody?
    /// The download's temporary file, which every hop writes through a descriptor of its own.
    var responseBodyFile: DownloadTemporaryFile?
    var progress: ProgressReporter?
    /// The endpoint's ``Endpoint/credentialHeaders``, for the redirect rules: not a transfer
    /// option, but state of the call that every hop needs.
    var credentialHeaders: Set<String> = []
    /// How the call uses the client's cache, on every hop.
    var cachePolicy = CachePolicy.useProtocol
    /// For a response body that goes to the caller as it arrives: where each hop's transfer
    /// gets its ``ResponseBodyChannel`` (the final response carries its own).
    var bodyChannels: StreamChannels?
    /// The call's own timeout, else its endpoint's; `nil` for the client's (see
    /// ``NetworkClient/timeout(of:)``).
    var timeout: TimeInterval?
    /// When the call must be over, on the client's clock: its timeout, set as the call
    /// starts, bounds its every attempt, hop, wait for a connection and wait between
    /// attempts. `nil` for no limit, and for streamed calls, whose timeout bounds silence
    /// instead.
    var deadline: Deadline?
    /// Whether the call's endpoint lets it share an exchange with identical requests
    /// (``Endpoint/allowsCoalescing``), on a client that coalesces.
    var coalesces = false
    /// For a body in memory that was compressed: its coding and length before, for the log.
    var compressedFrom: CompressedBodySizes.Original?

    /// No streaming: the plain ``Transport/send(_:)`` path.
    @usableFromInline
    static let none = TransferOptions()

    /// Whether the response body goes to a file rather than into memory.
    @usableFromInline
    var writesBodyToFile: Bool { responseBodyFile != nil }

    var isStreaming: Bool {
        body != nil || responseBodyFile != nil || progress != nil || bodyChannels != nil
    }
}
