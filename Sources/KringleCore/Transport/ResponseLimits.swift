/// How much a response may cost: the bounds a server cannot push the client past.
///
/// Both transports decode `gzip`, `deflate`, `br` and `zstd` bodies as they arrive, and a few
/// kilobytes of brotli can decode to gigabytes, so the bounds apply to decoded bytes, and the
/// transports check them while the body arrives: the transfer stops at the byte that crosses
/// one, and the request rejects with ``KringleError/responseTooLarge(_:limit:)``.
///
/// ```swift
/// var configuration = NetworkClient.Configuration()
/// configuration.responseLimits.maximumBodyBytes = 10_000_000
/// configuration.responseLimits.maximumDownloadBytes = 2_000_000_000
/// ```
public struct ResponseLimits: Sendable, Hashable {
    /// Which bound a response crossed.
    public enum Limit: Sendable, Hashable, CustomStringConvertible {
        /// ``ResponseLimits/maximumBodyBytes``, with its value.
        case bodyBytes(Int)
        /// ``ResponseLimits/maximumDownloadBytes``, with its value.
        case downloadBytes(Int64)
        /// ``ResponseLimits/maximumDecompressionRatio``, with its value.
        case decompressionRatio(Int)

        /// The bound's name and value, as error descriptions show it.
        public var description: String {
            switch self {
            case .bodyBytes(let bytes): "maximumBodyBytes (\(bytes) bytes)"
            case .downloadBytes(let bytes): "maximumDownloadBytes (\(bytes) bytes)"
            case .decompressionRatio(let ratio): "maximumDecompressionRatio (\(ratio) to 1)"
            }
        }
    }

    /// The most bytes a body kept in memory may reach after decoding: a successful one, an
    /// error's or a redirect's. 100 MB by default.
    public var maximumBodyBytes: Int
    /// The most bytes a download may write to its file after decoding; `nil`, the default,
    /// for no bound.
    public var maximumDownloadBytes: Int64?
    /// The most bytes of an error's body a transfer to a file keeps for the error (from the
    /// file); 1 MiB by default. A buffered error body is cut to this length too.
    public var maximumErrorBodyBytes: Int
    /// The most decoded bytes per byte received, checked once a body has decoded to more than
    /// 1 MiB (small bodies compress well and harmlessly); 1,000 by default, far above what
    /// real JSON or text reaches and far below what a decompression bomb needs.
    ///
    /// `URLSessionTransport` knows the bytes received only from the `Content-Length` a
    /// server announces, which the server may inflate, and not at all for a chunked body: its
    /// ratio check stops only honest bombs. Against servers you do not trust, use
    /// ``CurlTransport`` (which counts the bytes as they arrive), or bound downloads with
    /// ``maximumDownloadBytes``, which is unbounded by default.
    public var maximumDecompressionRatio: Int

    /// The bounds, by default 100 MB in memory, downloads unbounded, 1 MiB of error body kept
    /// and a decompression ratio of 1,000.
    public init(
        maximumBodyBytes: Int = 100_000_000,
        maximumDownloadBytes: Int64? = nil,
        maximumErrorBodyBytes: Int = 1 << 20,
        maximumDecompressionRatio: Int = 1_000
    ) {
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumDownloadBytes = maximumDownloadBytes
        self.maximumErrorBodyBytes = maximumErrorBodyBytes
        self.maximumDecompressionRatio = maximumDecompressionRatio
    }

    /// The default bounds.
    public static let `default` = ResponseLimits()

    /// The decoded size from which the ratio is checked.
    static let ratioCheckStart: Int64 = 1 << 20

    /// The bound that `decoded` bytes of body cross, if any.
    ///
    /// - Parameters:
    ///   - toFile: Whether the body goes to a file (a download) rather than memory.
    ///   - received: The body bytes received so far as sent (before decoding), when known;
    ///     asked only once the ratio is checked.
    package func crossed(decoded: Int64, toFile: Bool, received: () -> Int64?) -> Limit? {
        if toFile {
            if let maximum = maximumDownloadBytes, decoded > maximum { return .downloadBytes(maximum) }
        } else if decoded > Int64(maximumBodyBytes) {
            return .bodyBytes(maximumBodyBytes)
        }
        guard decoded > Self.ratioCheckStart, let received = received(), received > 0,
            decoded / received > Int64(maximumDecompressionRatio)
        else { return nil }
        return .decompressionRatio(maximumDecompressionRatio)
    }

    /// The bound that a body announced by `Content-Length`, and sent without a content
    /// coding, will cross: known before a byte of it arrives.
    package func crossedInAdvance(contentLength: Int64, toFile: Bool) -> Limit? {
        crossed(decoded: contentLength, toFile: toFile) { nil }
    }
}
