import Foundation
@_spi(KringleInternals) import KringlePromise

// The pipeline's first stage: the request's fields and body, its URL (URLAssembly.swift, with
// the memo that spares building it again, URLMemo.swift), and what the call's every hop needs
// besides the request (TransferOptions.swift).

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
        /// The call's own timeout, else the endpoint's; `nil` for the client's.
        var timeout: TimeInterval?
        /// Whether the call may share an exchange: on a client that coalesces, the endpoint's
        /// ``Endpoint/allowsCoalescing``.
        var coalesces = false

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
                timeout: timeout, coalesces: coalesces, compressedFrom: compressedFrom)
        }
    }

    /// The request for `method` on `endpoint`: the URL with the client's and the endpoint's
    /// query items, the client's default headers, the encoded body (compressed, with its
    /// `Content-Encoding`, when the endpoint asks and it is large enough) and its `Content-Type`,
    /// the call's own `headers` (what an event stream asks for, say), then the endpoint's own
    /// headers, which win. Each field is checked as it is set, and the method at the end
    /// (``ValidatedRequest``): a request that breaks RFC 9110's grammar fails here.
    ///
    /// - Parameters:
    ///   - callTimeout: The call's own timeout, over the endpoint's.
    ///   - addsDefaultQueryItems: Whether the client's default query items go first; not for
    ///     a URL a server gave (a page's `Link`), which holds the query it wants.
    static func build(
        _ method: HTTPMethod,
        _ endpoint: some Endpoint,
        body: RequestBody?,
        headers: [String: String] = [:],
        callTimeout: TimeInterval? = nil,
        addsDefaultQueryItems: Bool = true,
        for client: NetworkClient
    ) throws -> Built {
        let timeout = callTimeout ?? endpoint.timeout
        // The configuration is read through the client, never copied: a copy retains and
        // releases every reference it holds.
        let defaultItems = addsDefaultQueryItems ? client.configuration.defaultQueryItems : []
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
        try fields.set(headers)
        try fields.set(endpoint.headers)
        // One key per call: the attempts reuse this request, key and all.
        // The client's flag first: loading its set of methods costs a retain and a release.
        if endpoint.sendsIdempotencyKey
            || (client.sendsIdempotencyKeys && client.idempotencyKeyMethods.contains(method)),
            !fields.contains(IdempotencyKey.field)
        {
            try fields.set(IdempotencyKey.make(), for: IdempotencyKey.field)
        }
        return Built(
            request: try ValidatedRequest(
                url: url, method: method, timeout: transportTimeout(client.configuration, timeout: timeout), body: data,
                fields: fields),
            streamedBody: streamed, credentialHeaders: endpoint.credentialHeaders, cachePolicy: endpoint.cachePolicy,
            compressedFrom: compressedFrom, timeout: timeout,
            // The endpoint is asked only on a client that coalesces.
            coalesces: client.isCoalescing && endpoint.allowsCoalescing)
    }

    /// The ``HTTPRequest/timeout`` a request gives its transport, which is not the client's deadline
    /// (that travels as a ``Deadline``, to a transport that keeps it) but what a transport
    /// reads for itself: the limit a transport of the caller's own is told of, URLSession's
    /// own timer (a backstop that never fires much before the client's), and the limit on
    /// silence of a transfer, which libcurl and URLSession both take from it. Hence the
    /// call's timeout (`timeout`, else the client's) on the real clock, or the idle timeout
    /// when that is longer. On another clock (a test's `ManualClock`) the client's timers
    /// alone decide, so the transport gets a limit that real time will not reach.
    static func transportTimeout(_ configuration: NetworkClient.Configuration, timeout: TimeInterval?) -> TimeInterval {
        guard configuration.clock.measuresRealTime else { return 1_000_000 }
        let total = timeout ?? configuration.timeout
        guard let idle = configuration.idleTimeout, total > 0 else { return total }
        return max(total, idle)
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
                try merged.set(defaults)
                return merged
            }
        }
    }
}
