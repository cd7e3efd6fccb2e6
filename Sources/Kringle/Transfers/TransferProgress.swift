/// How far a transfer has come.
///
/// ```swift
/// client.download(Files.installer, to: destination) { progress in
///     if let fraction = progress.fractionCompleted { print("\(Int(fraction * 100)) %") }
/// }
/// ```
public struct TransferProgress: Sendable, Hashable {
    /// Bytes transferred so far.
    public var completedBytes: Int64
    /// The total, when known (a `Content-Length`, the size of the file being sent).
    public var totalBytes: Int64?

    /// Creates a progress value.
    public init(completedBytes: Int64, totalBytes: Int64?) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// `completedBytes / totalBytes`, when the total is known; 1 for an empty transfer.
    public var fractionCompleted: Double? {
        guard let totalBytes else { return nil }
        guard totalBytes > 0 else { return 1 }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }
}
