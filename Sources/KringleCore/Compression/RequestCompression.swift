import Foundation

/// How a request body is compressed before it is sent, and the `Content-Encoding` that
/// says so (RFC 9110 §8.4).
///
/// Set it on an endpoint, or on a ``RequestBuilder`` for the callback API:
///
/// ```swift
/// enum Logs: Endpoint {
///     case ingest
///     var baseURL: URL { URL(string: "https://logs.example")! }
///     var path: String { "/v1/ingest" }
///     var compression: RequestCompression? { .gzip }
/// }
///
/// var builder = RequestBuilder(method: .post, url: URL(string: "https://logs.example/v1/ingest")!,
///                              body: .json(batch))
/// builder.compression = .gzip
/// ```
///
/// Bodies smaller than ``minimumBodySize`` (by default ``defaultMinimumBodySize``, 1 KiB)
/// are sent as they are: the coding's header and trailer would outweigh what it saves.
/// Streamed bodies (a file upload, a multipart form) are compressed as they are read, never
/// held whole in memory. `CurlTransport` sends them as they are compressed, without
/// `Content-Length` (chunked, over HTTP/1.1); `URLSessionTransport`, which cannot send a
/// stream of unknown length, compresses them into a private temporary file first and sends
/// that with its `Content-Length`.
///
/// Compression sets `Content-Encoding` itself: an endpoint that also sets that header in
/// its own ``Endpoint/headers`` is refused with ``KringleError/invalidRequest(_:)`` (its
/// value would replace the library's and mislabel the body). Compress the body yourself and
/// leave `compression` `nil` to send a coding Kringle does not apply (`br`, `zstd`).
///
/// The server must accept the coding: one that does not answers `415 Unsupported Media
/// Type` (RFC 9110 §15.5.16). zlib is loaded at run time (``Zlib``); without it the request
/// fails with ``KringleError/compressionFailed(_:)``.
public struct RequestCompression: Sendable, Hashable {
    /// A content coding Kringle can apply (RFC 9110 §8.4.1).
    public enum Coding: String, Sendable, Hashable, CaseIterable {
        /// The gzip format, RFC 1952 (RFC 9110 §8.4.1.3).
        case gzip
        /// The zlib format, RFC 1950, around deflate data (RFC 9110 §8.4.1.2): what HTTP
        /// calls "deflate", not raw deflate.
        case deflate
    }

    /// The coding; also the `Content-Encoding` value.
    public var coding: Coding
    /// zlib's compression level, 1 (fastest) to 9 (smallest); 6 by default, as `gzip`'s.
    public var level: Int
    /// Bodies with fewer bytes than this are sent uncompressed.
    public var minimumBodySize: Int

    /// The default ``minimumBodySize``: 1024 bytes. Below about that, gzip's 18 bytes of
    /// header and trailer and deflate's block overhead save little or nothing.
    public static let defaultMinimumBodySize = 1024

    /// gzip at level 6, for bodies of at least 1 KiB.
    public static let gzip = RequestCompression(.gzip)
    /// deflate (the zlib format) at level 6, for bodies of at least 1 KiB.
    public static let deflate = RequestCompression(.deflate)

    /// Creates a compression.
    ///
    /// - Parameters:
    ///   - coding: gzip or deflate.
    ///   - level: 1 (fastest) to 9 (smallest); values outside are clamped.
    ///   - minimumBodySize: bodies smaller than this are sent as they are.
    public init(_ coding: Coding, level: Int = 6, minimumBodySize: Int = RequestCompression.defaultMinimumBodySize) {
        self.coding = coding
        self.level = min(max(level, 1), 9)
        self.minimumBodySize = minimumBodySize
    }

    /// Whether a body of `size` bytes is compressed.
    func applies(toBodyOf size: Int64) -> Bool {
        size >= Int64(minimumBodySize)
    }

    /// The endpoint's compression, after checking that its own headers do not set
    /// `Content-Encoding` too: RFC 9110 §8.4 makes that field the list of codings applied,
    /// so an endpoint's value, which wins over the library's, would name codings the body
    /// does not have (or, below ``minimumBodySize``, a coding it was not given).
    ///
    /// - Throws: ``KringleError/invalidRequest(_:)`` naming both.
    static func checked(for endpoint: some Endpoint) throws(KringleError) -> RequestCompression? {
        // The headers are read only when there is a compression: most requests have none.
        guard let compression = endpoint.compression else { return nil }
        for (name, value) in endpoint.headers where name.caseInsensitiveCompare("Content-Encoding") == .orderedSame {
            throw KringleError.invalidRequest(
                "The endpoint sets Content-Encoding: \(value) and asks for \(compression.coding.rawValue) compression, "
                    + "which sets Content-Encoding itself. Remove the header, or compress the body yourself "
                    + "and leave compression nil.")
        }
        return compression
    }

    /// `data` compressed in one go.
    ///
    /// - Throws: ``KringleError/compressionFailed(_:)``.
    func compress(_ data: Data, zlib: Result<Void, CompressionFailure> = Zlib.load()) throws(KringleError) -> Data {
        try Deflater(coding, level: level, zlib: zlib).compress(data, finish: true)
    }
}
