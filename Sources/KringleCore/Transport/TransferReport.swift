import Foundation

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
    /// The body bytes to send in all, when the transport knows them before it is done (a
    /// body it sends from a file of known size).
    public var expectedToSend: Int64?

    /// Creates a report.
    public init(
        sent: Int64, received: Int64, expectedToReceive: Int64?, statusCode: Int?, expectedToSend: Int64? = nil
    ) {
        self.sent = sent
        self.received = received
        self.expectedToReceive = expectedToReceive
        self.statusCode = statusCode
        self.expectedToSend = expectedToSend
    }
}
