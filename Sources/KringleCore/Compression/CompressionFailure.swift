/// Why a request body could not be compressed; the underlying error of
/// ``KringleError/compressionFailed(_:)``.
public enum CompressionFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// zlib could not be loaded; the text names every library tried and why each failed.
    case zlibUnavailable(String)
    /// zlib refused: `deflateInit2` or `deflate` returned `code` (zlib.h's `Z_…` values),
    /// with zlib's own message when it gave one.
    case zlib(code: Int32, message: String)

    /// What went wrong, for a person.
    public var description: String {
        switch self {
        case .zlibUnavailable(let reason):
            return reason
        case .zlib(let code, let message):
            return "zlib failed with code \(code)" + (message.isEmpty ? "" : ": \(message)")
        }
    }
}
