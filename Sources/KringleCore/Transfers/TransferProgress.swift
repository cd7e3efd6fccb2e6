/// How far a transfer has come.
///
/// ```swift
/// client.download(Files.installer, to: destination) { progress in
///     if let fraction = progress.fractionCompleted { print("\(Int(fraction * 100)) %") }
/// }
/// ```
public struct TransferProgress: Sendable, Hashable {
    /// Bytes transferred so far. For an upload compressed as it is sent
    /// (``Endpoint/compression``): bytes of the body read from its file, before
    /// compression, since how many compressed bytes there will be is not known until the
    /// end; ``bytesSent`` counts those.
    public var completedBytes: Int64
    /// The total, when known (a `Content-Length`, the size of the file being sent).
    public var totalBytes: Int64?
    /// For an upload compressed as it is sent: the compressed bytes sent so far, as the
    /// transport counts them (`CurlTransport` includes the chunked framing, a few bytes a
    /// chunk); `nil` for any other transfer, where ``completedBytes`` is what was sent.
    ///
    /// `CurlTransport` reads the file as it sends, so the two grow together.
    /// `URLSessionTransport` compresses the whole file into a temporary one first and sends
    /// that: ``completedBytes`` is then the share of it sent, scaled to the file's size, so
    /// it still moves as the upload does.
    public var bytesSent: Int64?

    /// Creates a progress value.
    public init(completedBytes: Int64, totalBytes: Int64?, bytesSent: Int64? = nil) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        self.bytesSent = bytesSent
    }

    /// `completedBytes / totalBytes`, when the total is known; 1 for an empty transfer.
    public var fractionCompleted: Double? {
        guard let totalBytes else { return nil }
        guard totalBytes > 0 else { return 1 }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }
}
