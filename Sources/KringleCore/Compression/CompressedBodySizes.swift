import Foundation

/// How much a compressed request body weighed before and after, as the log reports it
/// (``KringleLogEvent/requestBodyCompressed(method:url:sizes:)``).
public struct CompressedBodySizes: Sendable, Hashable, CustomStringConvertible {
    /// The coding applied, also the request's `Content-Encoding`.
    public var coding: RequestCompression.Coding
    /// The body's bytes before compression.
    public var originalBytes: Int64
    /// The bytes sent.
    public var compressedBytes: Int64

    /// Sizes to report.
    public init(coding: RequestCompression.Coding, originalBytes: Int64, compressedBytes: Int64) {
        self.coding = coding
        self.originalBytes = originalBytes
        self.compressedBytes = compressedBytes
    }

    /// "gzip, 120000 → 9312 bytes (7.8 %)".
    public var description: String {
        let ratio = originalBytes > 0 ? Double(compressedBytes) / Double(originalBytes) * 100 : 100
        return "\(coding.rawValue), \(originalBytes) → \(compressedBytes) bytes (\(String(format: "%.1f", ratio)) %)"
    }

    /// A body in memory before it was compressed: known when the request is built.
    struct Original: Sendable {
        var coding: RequestCompression.Coding
        var bytes: Int64
    }

    /// The sizes of the body `request` just sent, when it was compressed: from memory, or
    /// counted by the reader of a body compressed as it streamed.
    init?(_ request: ValidatedRequest, options: TransferOptions) {
        if let original = options.compressedFrom {
            self.init(
                coding: original.coding, originalBytes: original.bytes,
                compressedBytes: Int64(request.request.body?.count ?? 0))
        } else if let body = options.body, let compression = body.compression, let counter = body.compressionCounter {
            self.init(coding: compression.coding, originalBytes: body.length, compressedBytes: counter.bytesWritten)
        } else {
            return nil
        }
    }
}
