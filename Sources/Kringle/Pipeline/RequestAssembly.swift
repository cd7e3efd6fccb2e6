import Foundation
@_spi(KringleInternals) import KringlePromise

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The pipeline's first stage, whole: the request's fields and body (`RequestAssembly`), its
// URL (`URLAssembly`, with the memo that spares building it again), and what the call's
// every hop needs besides the request (`TransferOptions`).

/// Turns an endpoint, a method and a body into a ``ValidatedRequest``: the pipeline's first
/// stage.
///
/// (Not to be confused with ``RequestBuilder``, the callback API's description of a
/// request, which is one kind of endpoint this assembles.)
@usableFromInline
enum RequestAssembly {
    /// A request, and the body to stream with it when it has one (a multipart form).
    @usableFromInline
    struct Built: Sendable {
        @usableFromInline var request: ValidatedRequest
        var streamedBody: StreamedBody?
        var credentialHeaders: Set<String>
        var cachePolicy: CachePolicy
        /// For a body in memory that was compressed: its coding and length before, for the
        /// log.
        var compressedFrom: CompressedBodySizes.Original?

        /// What the pipeline carries from hop to hop for this request.
        var options: TransferOptions {
            options(cachePolicy: nil)
        }

        /// What the pipeline carries from hop to hop, with the call's own cache policy, when
        /// it has one, over the endpoint's.
        @usableFromInline
        func options(cachePolicy callPolicy: CachePolicy?) -> TransferOptions {
            TransferOptions(
                body: streamedBody, credentialHeaders: credentialHeaders, cachePolicy: callPolicy ?? cachePolicy,
                compressedFrom: compressedFrom)
        }
    }

    /// The request for `method` on `endpoint`: the URL with the client's and the endpoint's
    /// query items, the client's default headers, the encoded body (compressed, with its
    /// `Content-Encoding`, when the endpoint asks and it is large enough) and its `Content-Type`,
    /// the call's own `headers` (what an event stream asks for, say), then the endpoint's own
    /// headers, which win. Each field is checked as it is set, and the method at the end
    /// (``ValidatedRequest``): a request that breaks RFC 9110's grammar fails here.
    static func build(
        _ method: HTTPMethod,
        _ endpoint: some Endpoint,
        body: RequestBody?,
        headers: [String: String] = [:],
        for client: NetworkClient
    ) throws -> Built {
        // The configuration is read through the client, never copied: a copy retains and
        // releases every reference it holds.
        let defaultItems = client.configuration.defaultQueryItems
        let url = try URLAssembly.url(
            base: endpoint.baseURL,
            path: endpoint.path,
            // Joined only when there is something to join: that makes a new array.
            queryItems: defaultItems.isEmpty ? endpoint.queryItems : defaultItems + endpoint.queryItems
        )
        var data: Data?
        var fields = try client.defaultFields.fields.get()
        var streamed: StreamedBody?
        var compressedFrom: CompressedBodySizes.Original?
        // Compared before it is unwrapped: unwrapping copies it (see `NetworkClient.assemble`).
        if body != nil, let body {
            let encoded = try body.encoded(with: client.configuration.encoder)
            let compression = try RequestCompression.checked(for: endpoint)
            switch encoded.body {
            case .data(let encodedData):
                if let compression, compression.applies(toBodyOf: Int64(encodedData.count)) {
                    data = try compression.compress(encodedData)
                    compressedFrom = .init(coding: compression.coding, bytes: Int64(encodedData.count))
                    try fields.set(compression.coding.rawValue, for: "Content-Encoding")
                } else {
                    data = encodedData
                }
            case .streamed(let body):
                if let compression, compression.applies(toBodyOf: body.length) {
                    // Compressed as it streams; its length is not known before then.
                    try Zlib.load().mapError(KringleError.compressionFailed).get()
                    streamed = body.compressed(compression)
                    try fields.set(compression.coding.rawValue, for: "Content-Encoding")
                } else {
                    streamed = body
                    try fields.set(String(body.length), for: "Content-Length")
                }
            }
            try fields.set(encoded.contentType, for: "Content-Type")
        }
        for (name, value) in headers {
            try fields.set(value, for: name)
        }
        for (name, value) in endpoint.headers {
            try fields.set(value, for: name)
        }
        return Built(
            request: try ValidatedRequest(
                url: url, method: method, timeout: transportTimeout(client.configuration), body: data, fields: fields),
            streamedBody: streamed, credentialHeaders: endpoint.credentialHeaders, cachePolicy: endpoint.cachePolicy,
            compressedFrom: compressedFrom)
    }

    /// The `timeoutInterval` a request gives its transport: the client's own timeout on the
    /// real clock, where the transport's timer (inside URLSession or libcurl) is a backstop
    /// that never fires much before the client's; the idle timeout when that is longer, as a
    /// transport takes the interval as a limit on silence for a transfer. On another clock
    /// (a test's `ManualClock`) the client's timers alone decide, so the transport gets a
    /// limit that real time will not reach.
    static func transportTimeout(_ configuration: NetworkClient.Configuration) -> TimeInterval {
        guard configuration.clock.measuresRealTime else { return 1_000_000 }
        guard let idle = configuration.idleTimeout, configuration.timeout > 0 else { return configuration.timeout }
        return max(configuration.timeout, idle)
    }

    /// A client's ``NetworkClient/Configuration-swift.struct/defaultHeaders``, checked and
    /// merged once, when the client is made, rather than for every request.
    ///
    /// Defaults that name one field in two cases become one field: the spelling that sorts
    /// last, byte by byte, wins, so that the outcome does not depend on the dictionary's
    /// order, which changes from process to process.
    struct DefaultFields: Sendable {
        /// The fields, no two names equal but for case; or why one cannot be sent, which
        /// every request of the client then fails with. A request that adds none shares
        /// their storage.
        let fields: Result<CheckedFields, any Error>

        init(_ defaults: [String: String]) {
            fields = Result {
                var merged = CheckedFields()
                for (name, value) in defaults.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                    try merged.set(value, for: name)
                }
                return merged
            }
        }
    }
}

/// Builds the URL of an endpoint.
enum URLAssembly {
    /// `base` joined with `path`, then `queryItems` appended to any query `base` has.
    ///
    /// - Throws: ``KringleError/invalidRequest(_:)`` when no valid absolute URL forms.
    static func url(base: URL, path: String, queryItems: [URLQueryItem]) throws -> URL {
        let baseText = base.absoluteString
        return try built.url(for: URLMemo.Key(base: baseText, path: path, queryItems: queryItems)) {
            // Scheme and host in lower case, as for a redirect's target: FoundationNetworking
            // refuses `HTTP://…`.
            try build(base: base, baseText: baseText, path: path, queryItems: queryItems).withLowercaseSchemeAndHost()
        }
    }

    /// The URLs built lately: a few hundred, a few dozen kilobytes.
    static let built = URLMemo(capacity: 256)

    /// ``url(base:path:queryItems:)``, built; `baseText` is `base.absoluteString`.
    private static func build(base: URL, baseText: String, path: String, queryItems: [URLQueryItem]) throws -> URL {
        try rejectDotSegments(in: path)
        if let url = joinedText(base: baseText, path: path, queryItems: queryItems) { return url }
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: true),
            let scheme = components.scheme, !scheme.isEmpty,
            components.host?.isEmpty == false
        else {
            throw KringleError.invalidRequest(
                "The base URL \"\(base.absoluteString)\" is not an absolute URL with a host.")
        }
        let suffix = path.hasPrefix("/") ? String(path.dropFirst()) : path
        if !suffix.isEmpty {
            let prefix =
                components.percentEncodedPath.hasSuffix("/")
                ? String(components.percentEncodedPath.dropLast())
                : components.percentEncodedPath
            components.percentEncodedPath = prefix + "/" + PercentEncoding.path(suffix)
        }
        if !queryItems.isEmpty {
            let added = query(queryItems)
            components.percentEncodedQuery = components.percentEncodedQuery.map { $0 + "&" + added } ?? added
        }
        guard let url = components.url else {
            throw KringleError.invalidRequest(
                "No valid URL forms from base \"\(base.absoluteString)\" and path \"\(path)\".")
        }
        return url
    }

    /// The same URL, joined as text and parsed once, for the usual base (http or https, a
    /// host, no user info, query or fragment); `nil` for any other, which goes through
    /// `URLComponents`. Parsing the base into components and the result back costs more
    /// than the rest of building a request.
    private static func joinedText(base baseText: String, path: String, queryItems: [URLQueryItem]) -> URL? {
        guard isPlainHTTPBase(baseText) else { return nil }
        // A leading slash is kept by the encoding, so the whole path is encoded (a suffix
        // would be copied into a string of its own first).
        let encodedPath = PercentEncoding.path(path)
        // Even items that join to nothing (one nameless item) make a query: the `?` stays.
        let hasQuery = !queryItems.isEmpty
        let queryText = hasQuery ? query(queryItems) : ""
        let slash = UInt8(ascii: "/")
        let text = baseText.withContiguousUTF8 { base in
            encodedPath.withContiguousUTF8 { encoded in
                queryText.withContiguousUTF8 { query -> String? in
                    let path = encoded.first == slash ? encoded.dropFirst() : encoded[...]
                    guard !path.isEmpty || hasQuery else { return nil }
                    // The base's own trailing slash gives way to the one before the path.
                    let basePart = !path.isEmpty && base.last == slash ? base.dropLast() : base[...]
                    let question = UInt8(ascii: "?")
                    let count =
                        basePart.count + (path.isEmpty ? 0 : 1 + path.count) + (hasQuery ? 1 + query.count : 0)
                    // One allocation, the bytes copied once.
                    return String(unsafeUninitializedCapacity: count) { buffer in
                        var written = 0
                        func append(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, after separator: UInt8?) {
                            if let separator {
                                buffer[written] = separator
                                written += 1
                            }
                            for byte in bytes {
                                buffer[written] = byte
                                written += 1
                            }
                        }
                        append(basePart, after: nil)
                        if !path.isEmpty { append(path, after: slash) }
                        if hasQuery { append(query[...], after: question) }
                        return written
                    }
                }
            }
        }
        return URL(string: text ?? baseText)
    }

    /// Whether `text` reads `http://` or `https://` (in any case), then an authority that
    /// starts with its host (no user info, no empty host), then at most a path: no `?` or
    /// `#` anywhere. Byte by byte, as it runs for every request: asking the `URL` for its
    /// scheme, host, query and fragment parses each out again.
    private static func isPlainHTTPBase(_ text: String) -> Bool {
        text.withContiguousUTF8 { bytes in
            let schemeLength: Int
            if starts(bytes, caseInsensitivelyWith: "https://") {
                schemeLength = 8
            } else if starts(bytes, caseInsensitivelyWith: "http://") {
                schemeLength = 7
            } else {
                return false
            }
            let afterScheme = bytes[schemeLength...]
            let authority = afterScheme.prefix { $0 != UInt8(ascii: "/") }
            guard let first = authority.first, first != UInt8(ascii: ":"), !authority.contains(UInt8(ascii: "@"))
            else {
                return false
            }
            return !afterScheme.contains { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        }
    }

    /// Whether `bytes` start with the lowercase ASCII `prefix`, in any case.
    private static func starts(_ bytes: UnsafeBufferPointer<UInt8>, caseInsensitivelyWith prefix: StaticString) -> Bool
    {
        prefix.withUTF8Buffer { expected in
            guard bytes.count >= expected.count else { return false }
            for index in 0..<expected.count {
                let byte = bytes[index]
                let lowercase = expected[index]
                guard byte == lowercase || (byte | 0x20 == lowercase && lowercase >= UInt8(ascii: "a")) else {
                    return false
                }
            }
            return true
        }
    }

    /// Throws when a segment of `path` is `.` or `..`, plainly or percent-encoded: a value
    /// such as `"../../admin"` interpolated into a path would otherwise let the server (or
    /// libcurl, which removes dot segments, RFC 3986 §5.2.4) reach another resource.
    /// Segments end at `/`, and also at `\`, `%2F` and `%5C`, which some servers decode or
    /// take for a separator before they route. Byte by byte, in place, as it runs for every
    /// request.
    private static func rejectDotSegments(in path: String) throws {
        try path.withContiguousUTF8 { bytes in try rejectDotSegments(in: bytes, of: path) }
    }

    private static func rejectDotSegments(in bytes: UnsafeBufferPointer<UInt8>, of path: String) throws {
        var segmentStart = 0
        var index = 0
        while index <= bytes.count {
            let separator = separatorLength(in: bytes, at: index)
            guard index == bytes.count || separator > 0 else {
                index += 1
                continue
            }
            if isDotSegment(bytes[segmentStart..<index]) {
                throw KringleError.invalidRequest(
                    "The path \"\(path)\" has a \"\(String(decoding: bytes[segmentStart..<index], as: UTF8.self))\" "
                        + "segment, which would reach another resource; interpolate values from users with "
                        + "\\(pathSegment:).")
            }
            index += max(separator, 1)
            segmentStart = index
        }
    }

    /// The length of the separator at `index` (`/`, `\`, `%2F` or `%5C`), or 0.
    private static func separatorLength(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        guard index < bytes.count else { return 0 }
        if bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "\\") { return 1 }
        guard bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count else { return 0 }
        let escape = (bytes[index + 1], bytes[index + 2] | 0x20)
        return escape == (UInt8(ascii: "2"), UInt8(ascii: "f")) || escape == (UInt8(ascii: "5"), UInt8(ascii: "c"))
            ? 3 : 0
    }

    /// Whether `segment` is one or two dots, each either `.` or `%2E` (either case).
    private static func isDotSegment(_ segment: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var dots = 0
        var index = segment.startIndex
        while index < segment.endIndex {
            if segment[index] == UInt8(ascii: ".") {
                index += 1
            } else if segment[index] == UInt8(ascii: "%"), segment.endIndex - index >= 3,
                segment[index + 1] == UInt8(ascii: "2"), segment[index + 2] | 0x20 == UInt8(ascii: "e")
            {
                index += 3
            } else {
                return false
            }
            dots += 1
            if dots > 2 { return false }
        }
        return dots > 0
    }

    /// The query items percent-encoded strictly and joined with `&`.
    private static func query(_ items: [URLQueryItem]) -> String {
        items.map { item in
            let name = PercentEncoding.queryComponent(item.name)
            return item.value.map { name + "=" + PercentEncoding.queryComponent($0) } ?? name
        }.joined(separator: "&")
    }
}

/// The URLs built lately, by what each was built from, so that a call to an endpoint the
/// process has called before skips building its URL again.
///
/// Most programs call a few dozen endpoints over and over, and building the URL (the path
/// percent-encoded and checked for dot segments, the text parsed by Foundation's RFC 3986
/// parser into a `URL`) costs more than the rest of assembling the request. Building is a
/// pure function of the key, so a remembered URL is the one building would give. Only
/// URLs that were built are remembered: an input that fails is built (and fails) again.
///
/// Bounded: once `capacity` URLs are remembered, the next new one starts the memo afresh.
/// Paths that differ on every call (an ID in each) then cost one look-up and one insertion
/// more than building alone, and the memory stays small.
final class URLMemo: Sendable {
    /// What a URL is built from.
    struct Key: Hashable, Sendable {
        var base: String
        var path: String
        var queryItems: [URLQueryItem]
    }

    let capacity: Int
    private let urls = Locked<[Key: URL]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The URL remembered for `key`, or the one `build` gives, remembered.
    func url(for key: Key, build: () throws -> URL) rethrows -> URL {
        if let url = urls.withLock({ $0[key] }) { return url }
        // Built outside the lock: another thread that builds the same URL at the same
        // time builds an equal one.
        let url = try build()
        urls.withLock { urls in
            if urls.count >= capacity { urls.removeAll(keepingCapacity: true) }
            urls[key] = url
        }
        return url
    }

    /// How many URLs are remembered.
    var count: Int {
        urls.withLock { $0.count }
    }
}

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
    /// When the attempt must be over, on the client's clock (its `uptimeNanoseconds`): the
    /// client's timeout, set as the attempt starts, bounds its every hop and every wait
    /// for a connection. `nil` for no limit, and for streamed calls, whose timeout bounds
    /// silence instead.
    var deadline: UInt64?
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

extension HTTPResponse {
    /// This response with its body cut to `limit` bytes, or read back from the transfer's
    /// file (at most `limit` bytes), so an error keeps it as for any request.
    func withBody(from options: TransferOptions, limit: Int) -> HTTPResponse {
        var copy = self
        guard let file = options.responseBodyFile else {
            if body.count > limit { copy.body = body.prefix(limit) }
            return copy
        }
        copy.body = file.prefix(limit)  // through the descriptor, not the path
        return copy
    }
}
