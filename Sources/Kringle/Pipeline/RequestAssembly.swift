import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns an endpoint, a method and a body into a `URLRequest`: the pipeline's first stage.
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

        /// What the pipeline carries from hop to hop for this request.
        var options: TransferOptions {
            options(cachePolicy: nil)
        }

        /// What the pipeline carries from hop to hop, with the call's own cache policy, when
        /// it has one, over the endpoint's.
        @usableFromInline
        func options(cachePolicy callPolicy: CachePolicy?) -> TransferOptions {
            TransferOptions(
                body: streamedBody, credentialHeaders: credentialHeaders, cachePolicy: callPolicy ?? cachePolicy)
        }
    }

    /// The request for `method` on `endpoint`: the URL with the client's and the endpoint's
    /// query items, the client's default headers, the encoded body and its `Content-Type`,
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
        // Compared before it is unwrapped: unwrapping copies it (see `NetworkClient.assemble`).
        if body != nil, let body {
            let encoded = try body.encoded(with: client.configuration.encoder)
            switch encoded.body {
            case .data(let encodedData): data = encodedData
            case .streamed(let body):
                streamed = body
                try fields.set(String(body.length), for: "Content-Length")
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
                url: url, method: method, timeout: client.configuration.transportTimeout, body: data, fields: fields),
            streamedBody: streamed, credentialHeaders: endpoint.credentialHeaders, cachePolicy: endpoint.cachePolicy)
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
