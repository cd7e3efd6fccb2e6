import Kringle

/// A failure a cassette recorded, given again on replay inside
/// ``/KringleCore/KringleError/transport(_:)``: an exchange that got no response (HAR status 0,
/// its error in the response's `_error`), or a streamed body that broke off
/// (`_kringleStreamError`).
///
/// It stands for a failure of the network, so it is a ``/KringleCore/TransportFailure``, as a
/// live transport's `CurlError` or `URLError` is: an event stream reconnects after it, to the
/// cassette's next entry, as it did when it was recorded. Whether the recorded request never
/// completed is not known, so ``/KringleCore/RetryPolicy`` does not resend it.
///
/// ```swift
/// if case KringleError.transport(let failure as RecordedFailure) = error {
///     print(failure.message)   // net::ERR_CONNECTION_REFUSED
/// }
/// ```
public struct RecordedFailure: TransportFailure, Sendable, Hashable, CustomStringConvertible {
    /// The error as the recording (or the browser that exported the file) described it.
    public var message: String

    /// A recorded failure described by `message`.
    public init(message: String) {
        self.message = message
    }

    /// `false`: the cassette does not say whether the request reached the server.
    public var requestNeverCompleted: Bool { false }

    /// The recorded error, marked as replayed.
    public var description: String {
        "replayed from the cassette: \(message)"
    }
}
